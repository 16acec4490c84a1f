"""`tools.<name>(...)` inside tools: Python tools, OpenAPI endpoints, state, cycles, budgets."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from runtime import EgressPolicy, Runtime
from samples.crm_server import CrmServer
from tests.conftest import SAMPLES

API_KEY = "s3cret-crm-key-0042"


@pytest.fixture
def crm() -> Iterator[CrmServer]:
    server = CrmServer(port=0, api_key=API_KEY)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def crm_runtime(server: CrmServer, key: str = API_KEY) -> Runtime:
    rt = Runtime(egress=EgressPolicy(allow_hosts=[f"127.0.0.1:{server.port}"]))
    rt.add_openapi(
        "crm_service",
        SAMPLES / "openapi" / "crm_service.yaml",
        server=f"http://127.0.0.1:{server.port}",
        auth={"crm_key": key},
    )
    return rt


CART_SUMMARY = '''
def summarize_cart() -> str:
    """Summarizes the customer's cart."""
    res = tools.crm_service_get_cart_information({})
    items = ", ".join(f"{i['quantity']} x {i['sku']}" for i in res["items"])
    return f"Cart: {items}"
'''


def test_the_published_crm_pattern_against_a_local_service(crm: CrmServer) -> None:
    with crm_runtime(crm) as rt:
        rt.add_tool(CART_SUMMARY)
        result = rt.call("summarize_cart", {})
        direct = rt.call("crm_service_get_cart_information", {"customer_id": "c-1"})
    assert result.success, result.error
    assert result.output == "Cart: 2 x tea"
    assert direct.success and direct.output["items"] == [{"sku": "tea", "quantity": 2}]


def test_an_operation_is_also_called_by_its_operation_id_as_written(crm: CrmServer) -> None:
    # CES code calls tools.<toolset>_<operationId> with the id as the document spells it (a real
    # export calls tools.customer_details_openapi_getEidpToken); models still see the snake_case name
    as_written = CART_SUMMARY.replace("crm_service_get_cart_information", "crm_service_getCartInformation")
    with crm_runtime(crm) as rt:
        rt.add_tool(as_written)
        result = rt.call("summarize_cart", {})
        names = [tool.name for tool in rt.tools()]
    assert result.success, result.error
    assert result.output == "Cart: 2 x tea"
    assert "crm_service_get_cart_information" in names and "crm_service_getCartInformation" not in names


def test_endpoint_tools_appear_in_every_format(crm: CrmServer) -> None:
    with crm_runtime(crm) as rt:
        tool = rt.get_tool("crm_service_get_cart_information")
        for fmt in ("openai", "responses", "gemini", "mcp"):
            assert "crm_service_get_cart_information" in str(tool.schema(fmt))


LEAKER = '''
def leak() -> str:
    """Looks everywhere for the CRM key."""
    seen = [str(tools), repr(tools), str(dir(tools)), str(ces_requests), str(context.state), str(context.events)]
    try:
        tools.crm_service_get_cart_information({})
    except Exception as e:
        seen.append(str(e))
    res = ces_requests.get("http://127.0.0.1:%d/cart")
    seen.append(res.text)
    seen.append(str(res.headers))
    return " ".join(seen)
'''


def test_no_tool_can_read_the_api_key(crm: CrmServer) -> None:
    with crm_runtime(crm, key="wrong-" + API_KEY) as rt:
        rt.add_tool(LEAKER % crm.port)
        result = rt.call("leak", {})
    assert result.success, result.error
    assert "401" in result.output or "X-CRM-Key" in result.output
    assert API_KEY not in result.output
    assert API_KEY not in result.logs


OUTER = '''
def outer(value: str) -> dict:
    """Writes state, calls inner, reads what inner wrote."""
    context.state["from_outer"] = value
    got = tools.inner({"suffix": "!"})
    return {"inner_output": got, "seen_in_outer": context.state["from_inner"]}
'''

INNER = '''
def inner(suffix: str) -> str:
    """Reads the caller's uncommitted state and writes its own."""
    context.state["from_inner"] = context.state["from_outer"] + suffix
    return context.state["from_inner"]
'''


def test_nested_calls_share_the_callers_state_and_delta(rt: Runtime) -> None:
    rt.add_tool(OUTER)
    rt.add_tool(INNER)
    result = rt.call("outer", {"value": "hi"}, session_id="s")
    assert result.success, result.error
    assert result.output == {"inner_output": "hi!", "seen_in_outer": "hi!"}
    assert rt.store.require_session("s").state == {"from_outer": "hi", "from_inner": "hi!"}


def test_a_failure_after_a_nested_call_commits_nothing(rt: Runtime) -> None:
    rt.add_tool(INNER)
    rt.add_tool(
        'def outer_fails() -> None:\n    """Fails after a nested call."""\n'
        '    context.state["from_outer"] = "x"\n    tools.inner({"suffix": "?"})\n    raise ValueError("late")\n'
    )
    result = rt.call("outer_fails", {}, session_id="s")
    assert result.error is not None and result.error.kind == "tool_error"
    assert rt.store.require_session("s").state == {}


def test_a_failing_nested_tool_can_be_caught(rt: Runtime) -> None:
    rt.add_tool('def boom() -> None:\n    """Fails."""\n    raise KeyError("gone")\n')
    rt.add_tool(
        'def careful() -> str:\n    """Catches."""\n    try:\n        tools.boom({})\n'
        '    except Exception as e:\n        return f"caught: {e}"\n    return "no"\n'
    )
    result = rt.call("careful", {})
    assert result.success, result.error
    assert result.output.startswith("caught:") and "gone" in result.output


def chain(name: str, calls: str) -> str:
    return f'def {name}() -> str:\n    """Calls {calls}."""\n    return tools.{calls}({{}})\n'


def test_cycles_are_detected(rt: Runtime) -> None:
    rt.add_tool(chain("ping", "pong"))
    rt.add_tool(chain("pong", "ping"))
    result = rt.call("ping", {})
    assert not result.success
    assert result.error is not None and "cycle" in result.error.message
    assert "ping -> pong -> ping" in result.error.message


def test_nesting_depth_is_limited(rt: Runtime) -> None:
    names = [f"level_{i}" for i in range(8)]
    for name, callee in zip(names, names[1:], strict=False):
        rt.add_tool(chain(name, callee))
    rt.add_tool('def level_7() -> str:\n    """Bottom."""\n    return "bottom"\n')
    result = rt.call("level_0", {})
    assert not result.success
    assert result.error is not None and "deeper than 5" in result.error.message
    assert rt.call("level_3", {}).output == "bottom"


def test_calls_per_top_level_call_are_limited(rt: Runtime) -> None:
    rt.add_tool('def one() -> int:\n    """One."""\n    return 1\n')
    rt.add_tool(
        'def many(n: int) -> int:\n    """Calls one n times."""\n'
        "    return sum(tools.one({}) for _ in range(n))\n"
    )
    assert rt.call("many", {"n": 10}).output == 10
    result = rt.call("many", {"n": 60})
    assert not result.success
    assert result.error is not None and "more than 50" in result.error.message


def test_nested_arguments_are_validated(rt: Runtime) -> None:
    rt.add_tool(INNER)
    rt.add_tool(
        'def wrong_args() -> str:\n    """Passes a bad argument."""\n    try:\n        tools.inner({"suffix": 3})\n'
        '    except Exception as e:\n        return str(e)\n    return "no"\n'
    )
    result = rt.call("wrong_args", {})
    assert result.success and "suffix" in result.output


FETCH = """
def fetch(url: str) -> dict:
    \"\"\"Fetches a URL with the CRM key the tool was given.\"\"\"
    try:
        res = ces_requests.get(url=url, headers={"X-CRM-Key": "KEY"})
        return {"status": res.status_code, "body": res.json()}
    except ces_requests.RequestDenied as e:
        return {"error": "RequestDenied", "message": str(e)}
"""


def test_ces_requests_reaches_only_allowed_hosts(crm: CrmServer) -> None:
    with crm_runtime(crm) as rt:
        rt.add_tool(FETCH.replace("KEY", API_KEY))
        allowed = rt.call("fetch", {"url": f"http://127.0.0.1:{crm.port}/cart"})
        refused = rt.call("fetch", {"url": "http://169.254.169.254/latest/meta-data/"})
    assert allowed.output["status"] == 200, allowed
    assert refused.output["error"] == "RequestDenied", refused
