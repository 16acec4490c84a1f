"""samples/apps/Support_Desk: an app in the CES export layout whose tools and callbacks use the CES classes.

The loader here is the least a test needs (``toolpen app`` commands will read the layout for
users): tools by ``pythonFunction``, callbacks per kind in list order with ``disabled`` ones
left out, a tool's fake only when its ``toolFakeConfig`` has ``enableFakeMode``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from runtime import Runtime
from runtime._check import check_source
from sandbox.common.errors import InvalidSource
from tests.conftest import SAMPLES

APP = SAMPLES / "apps" / "Support_Desk"
CALLBACK_LISTS = [
    f"{when}{what}Callbacks" for what in ("Agent", "Model", "Tool") for when in ("before", "after")
]


def read_json(relative: str) -> dict:
    return json.loads((APP / relative).read_text())


def load_app(rt: Runtime) -> dict:
    """Register the app's tools, callbacks and fakes; returns the app file."""
    app = read_json("app.json")
    for tool_file in sorted(APP.glob("tools/*/*.json")):
        tool = json.loads(tool_file.read_text())
        function = tool["pythonFunction"]
        rt.add_tool((APP / function["pythonCode"]).read_text(), function["name"])
        fake = tool.get("toolFakeConfig") or {}
        if fake.get("enableFakeMode"):
            rt.add_fakes((APP / fake["codeBlock"]["pythonCode"]).read_text(), tool=function["name"])
    root = app["rootAgent"].replace(" ", "_")
    agent = read_json(f"agents/{root}/{root}.json")
    for field in CALLBACK_LISTS:
        for callback in agent.get(field, []):
            if not callback.get("disabled"):
                rt.add_callback((APP / callback["pythonCode"]).read_text())
    return app


@pytest.fixture
def app_rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", enable_fakes=True, agent_name="Support Agent") as rt:
        load_app(rt)
        yield rt


def user(text: str) -> dict:
    return {"user_content": {"role": "user", "parts": [{"text": text}]}}


def test_every_file_the_app_names_exists_and_its_code_checks_clean() -> None:
    app = read_json("app.json")
    assert app["rootAgent"] == "Support Agent" and (APP / app["globalInstruction"]).is_file()
    agent = read_json("agents/Support_Agent/Support_Agent.json")
    named = [agent["instruction"]] + [c["pythonCode"] for f in CALLBACK_LISTS for c in agent.get(f, [])]
    for tool_file in APP.glob("tools/*/*.json"):
        tool = json.loads(tool_file.read_text())
        assert tool["pythonFunction"]["name"] == tool["displayName"] == tool_file.parent.name
        named += [tool["pythonFunction"]["pythonCode"]]
        named += (
            [tool.get("toolFakeConfig", {}).get("codeBlock", {}).get("pythonCode")]
            if "toolFakeConfig" in tool
            else []
        )
    assert all((APP / path).is_file() for path in named)
    code = sorted(APP.rglob("python_code.py"))
    assert {str(path.relative_to(APP)) for path in code} == {p for p in named if p.endswith(".py")}
    for path in code:
        assert check_source(path.read_text()) == [], path


def test_session_start_is_greeted_without_the_model(app_rt: Runtime) -> None:
    start = app_rt.run_callbacks("before_agent", context=user("<event>session start</event>"), session_id="s")
    assert start.output == {"role": "model", "parts": [{"text": "Hello! How can I help with your order?"}]}
    assert app_rt.run_callbacks("before_agent", context=user("hi"), session_id="s").output is None
    assert app_rt.store.require_session("s").state == {"greeted": "true"}


def test_asking_for_a_human_hands_over(app_rt: Runtime) -> None:
    request = {"contents": [{"role": "user", "parts": [{"text": "Can I talk to a human?"}]}]}
    result = app_rt.run_callbacks("before_model", llm_request=request)
    assert result.output == {
        "content": {
            "role": "model",
            "parts": [
                {"text": "I'll pass you to a colleague."},
                {"function_call": {"name": "transfer_to_agent", "args": {"agent_name": "Human Agent"}}},
            ],
        }
    }
    ordinary = {"contents": [{"role": "user", "parts": [{"text": "Where is A-1001?"}]}]}
    assert app_rt.run_callbacks("before_model", llm_request=ordinary).output is None


def test_lookup_redacts_the_email_and_remembers_the_order(app_rt: Runtime) -> None:
    result = app_rt.call("lookup_order", {"order_id": "a-1001"}, session_id="s")
    assert result.output == {"order_id": "A-1001", "status": "shipped", "total": "18.50", "email": "[email]"}
    assert result.state == {"last_order_id": "A-1001"} and not result.faked


def test_the_fake_answers_test_orders_only(app_rt: Runtime) -> None:
    faked = app_rt.call("lookup_order", {"order_id": "test-7"})
    assert faked.faked and faked.output == {"order_id": "TEST-7", "status": "test", "total": "0.00"}
    assert not app_rt.call("lookup_order", {"order_id": "A-1002"}).faked


def test_a_refund_calls_lookup_through_tools_and_reads_json(app_rt: Runtime) -> None:
    refused = app_rt.call("request_refund", {"order_id": "A-1002", "reason": "broken"}, session_id="s")
    assert refused.output == {"filed": False, "message": "Orders over 25 EUR need a manager."}
    assert refused.state["refund_status"] == "refused"
    filed = app_rt.call("request_refund", {"order_id": "A-1001", "reason": "late"}, session_id="s")
    assert filed.output == {"filed": True, "order_id": "A-1001", "amount": "18.50"}
    assert filed.logs == "refund requested for A-1001: late\n"
    assert app_rt.store.require_session("s").state == {
        "refund_status": "requested",
        "last_order_id": "A-1001",
    }


def test_a_refund_without_a_reason_is_not_run(app_rt: Runtime) -> None:
    result = app_rt.call("request_refund", {"order_id": "A-1001", "reason": " "}, session_id="s")
    assert result.output == {"filed": False, "message": "Ask the customer why they want a refund."}
    assert app_rt.store.require_session("s").state == {}


def test_order_summary_uses_async_tools(app_rt: Runtime) -> None:
    result = app_rt.call("order_summary", {"order_ids": ["A-1001", "A-1002", "Z-9", "test-1"]})
    assert result.output == {
        "statuses": {"A-1001": "shipped", "A-1002": "delivered", "TEST-1": "test"},
        "found": 3,
    }


def test_the_refund_status_joins_answers_and_the_disabled_callback_never_runs(app_rt: Runtime) -> None:
    app_rt.call("request_refund", {"order_id": "A-1001", "reason": "late"}, session_id="s")
    response = {"content": {"role": "model", "parts": [{"text": "Your refund is on its way."}]}}
    result = app_rt.run_callbacks("after_model", session_id="s", llm_response=response)
    texts = [part["text"] for part in result.output["content"]["parts"]]
    assert texts == ["Your refund is on its way.", "(Refund status: requested.)"]
    other = {"content": {"role": "model", "parts": [{"text": "It ships tomorrow."}]}}
    assert app_rt.run_callbacks("after_model", session_id="s", llm_response=other).output is None


def test_a_tools_fake_file_fakes_that_tool_only() -> None:
    fake = (APP / "tools/lookup_order/tool_fake_config/code_block/python_code.py").read_text()
    with Runtime(enable_fakes=True) as rt:
        rt.add_tool('def other(order_id: str) -> str:\n    """Other."""\n    return "real"\n')
        rt.add_fakes(fake, tool="lookup_order")
        assert rt.call("other", {"order_id": "TEST-1"}).output == "real"
        with pytest.raises(InvalidSource, match="may only fake 'lookup_order'"):
            rt.add_fakes(
                "def fake_other(tool, input, callback_context):\n    return {}\n", tool="lookup_order"
            )
