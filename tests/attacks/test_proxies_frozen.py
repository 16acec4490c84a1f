"""The host's objects inside a worker are frozen, and copying them hands out none of their internals.

``context.state.delta = ...`` used to replace the method the worker asks for the call's changes,
and ``current`` the one it measured the state with: a tool then committed 6 MB of state past the
4 MiB limit. ``copy.deepcopy(x, memo)`` filled the tool's memo with copies (and, under
``id(memo)``, the originals) of every private attribute it went through: ``_rpc``, ``_snapshot``.
"""

from __future__ import annotations

import textwrap

import pytest

from runtime import Runtime
from sandbox.bridges.proxies import Context, State, Tools
from sandbox.bridges.requests_proxy import Response, make_ces_requests
from tests.attacks import run_tool

REPLACEMENTS = {
    "state-delta": "context.state.delta = lambda: {'set': {'x': 'y' * 6_000_000}, 'deleted': []}",
    "state-current": "context.state.current = lambda: {}",
    "state-setattr": "setattr(context.state, 'current', dict)",
    "state-class": "type(context.state).current = lambda self: {}",
    "requests-method": "ces_requests.get = lambda *a, **k: None",
    "requests-class": "type(ces_requests).request = lambda *a, **k: None",
    "tools-method": "tools.call = lambda *a: None",
    "context-state": "context.state = {}",
}


@pytest.mark.parametrize("statement", REPLACEMENTS.values(), ids=REPLACEMENTS.keys())
def test_host_proxies_cannot_be_changed(rt: Runtime, statement: str) -> None:
    source = f"def replace_method() -> str:\n    {statement}\n    context.state['big'] = 'x' * 6_000_000\n    return 'ok'\n"
    rt.add_tool(source, replace=True)
    result = rt.call("replace_method", {}, session_id="frozen-proxies")
    assert not result.success
    assert result.error.kind in ("policy", "tool_error", "output_too_large"), result.error
    assert rt.call("replace_method", {}, session_id="frozen-proxies").state == {}


def test_a_response_keeps_its_own_methods() -> None:
    response = Response({"status_code": 200, "text": "{}"})
    with pytest.raises(AttributeError):
        response.json = lambda: "forged"  # type: ignore[method-assign]
    response.encoding = "latin-1"  # the public data stays writable, as in requests
    assert response.json() == {}


COPIES = {
    "deepcopy-state": "context.state",
    "deepcopy-context": "context",
    "deepcopy-tools": "tools",
    "deepcopy-bound-method": "ces_requests.get",
    "deepcopy-in-a-list": "[context.state, tools]",
}


@pytest.mark.parametrize("expression", COPIES.values(), ids=COPIES.keys())
def test_a_copy_memo_holds_nothing_of_the_host(expression: str) -> None:
    state = State({"secret": {"k": 1}})
    injected = {
        "context": Context({"state": {"secret": {"k": 1}}}),
        "tools": Tools(lambda *args: None, state),
        "ces_requests": make_ces_requests(lambda *args: None),
    }
    source = (
        "import copy\ndef tool():\n    memo = {}\n"
        f"    value = {expression}\n    result = copy.deepcopy(value, memo)\n    return [memo, result, value]\n"
    )
    try:
        (memo, result, value), _ = run_tool(source, injected=injected)
    except (TypeError, AttributeError):
        return  # a host object that refuses to be copied (or rebuilt) hands out nothing either
    assert set(memo) == {id(value), id(memo)}
    assert memo[id(value)] is result and len(memo[id(memo)]) == 1 and memo[id(memo)][0] is value


HOOKED_COPIES = {
    "instance-dict": "class Hook:\n    pass\ndef hook():\n    h = Hook()\n    vars(h)['__deepcopy__'] = grab\n    return h\n",
    "getattr": (
        "class Hook:\n    def __getattr__(self, name):\n        if name == '__deepcopy__':\n            return grab\n"
        "        raise AttributeError(name)\ndef hook():\n    return Hook()\n"
    ),
}


@pytest.mark.parametrize("hook", HOOKED_COPIES.values(), ids=HOOKED_COPIES.keys())
def test_a_deepcopy_hook_of_the_tool_never_sees_the_internal_memo(hook: str) -> None:
    # deepcopy hands a __deepcopy__ it finds its memo, which by then held ces_requests' private _rpc
    # (an outside review put one in an instance's __dict__, which vars() hands out)
    source = (
        "import copy\nSEEN = []\ndef grab(memo):\n    SEEN.append(memo)\n    return None\n"
        + hook
        + "def tool():\n    copy.deepcopy([ces_requests, hook()])\n    return SEEN\n"
    )
    seen, _ = run_tool(source, injected={"ces_requests": make_ces_requests(lambda *args: None)})
    assert seen == []


def test_an_ordinary_deepcopy_still_shares_what_it_shared() -> None:
    source = textwrap.dedent(
        """
        import copy
        def tool():
            shared = [1, 2]
            memo = {}
            first = copy.deepcopy({'a': shared, 'b': shared}, memo)
            again = copy.deepcopy(shared, memo)
            twice = copy.deepcopy(shared, memo)
            return [first['a'] is first['b'], again is twice, copy.deepcopy(context.state) == {'n': 1}]
        """
    )
    result, _ = run_tool(source, injected={"context": Context({"state": {"n": 1}})})
    assert result == [True, True, True]


def test_a_value_that_serializes_differently_each_time_cannot_pass_the_size_check(rt: Runtime) -> None:
    source = """
        class Shifty(dict):
            def __init__(self):
                super().__init__(a=1)
                self.reads = 0
            def items(self):
                self.reads += 1
                return [("pad", "x" * 6_000_000)] if self.reads == 2 else []

        def shifty_state() -> str:
            context.state["big"] = Shifty()
            return "ok"
        """
    rt.add_tool(textwrap.dedent(source))
    result = rt.call("shifty_state", {}, session_id="shifty-state")
    assert not result.success and result.error.kind == "output_too_large", result
    assert rt.call("shifty_state", {}, session_id="shifty-state").state == {}


def test_the_host_enforces_the_state_limit_whatever_the_worker_says() -> None:
    # under walls="process" tool code holds the real builtins: it rewrites the worker's own check
    source = """
        import sys

        def flood() -> str:
            worker = sys.modules["sandbox.process.worker"]
            worker.state_delta = lambda state: {"set": {"big": "x" * 6_000_000}, "deleted": []}
            worker.state_size_after = lambda state, delta: 0
            return "ok"
        """
    with Runtime(store="memory://", walls="process") as runtime:
        runtime.add_tool(textwrap.dedent(source))
        result = runtime.call("flood", {}, session_id="host-limit")
        assert not result.success and result.error.kind == "output_too_large", result
        assert "over the limit" in result.error.message
        assert runtime.store.get_or_create_session("toolpen", "user", "host-limit").state == {}
