"""Which shared scopes a call may touch, read from its code: never "none" for code that can."""

from __future__ import annotations

import pytest

from runtime import Runtime
from runtime._shared_scopes import call_scopes, reach_of
from runtime._state import Scope

APP, USER = Scope.APP, Scope.USER
BOTH = {APP, USER}


def tool(body: str, params: str = "") -> str:
    lines = "\n".join(f"    {line}" for line in body.splitlines())
    return f'def f({params}) -> object:\n    """A tool."""\n{lines}\n'


@pytest.mark.parametrize(
    ("body", "scopes"),
    [
        ('context.state["n"] = context.state.get("n", 0) + 1', set()),
        ('return "app:x" in context.state, len(context.state), list(context.state.keys())', set()),
        ('print("user: hello")\nreturn "app: a name, not a key"', set()),
        ('context.state["app:total"] += 1', {APP}),
        ('return context.state.get("user:plan")', {USER}),
        ('context.state.setdefault("app:cart", []).append(1)', {APP}),
        ('del context.state["user:x"]', {USER}),
        ('return context.state["app:a"], context.state.pop("user:b", None)', BOTH),
    ],
)
def test_literal_keys_name_their_scope(body: str, scopes: set[Scope]) -> None:
    assert reach_of(tool(body)).scopes == scopes


@pytest.mark.parametrize(
    "body",
    [
        "context.state[key] = 1",
        'context.state[f"app:{key}"] = 1',
        "return context.state.get(key)",
        'context.state.update({"n": 1})',
        "context.state.clear()",
        "return dict(context.state.items())",
        "for k in context.state:\n    print(k)",
        'state = context.state\nstate["n"] = 1',
        "helper = context.state.get\nreturn helper(key)",
        "return g(context)",
        'return getattr(context, "state")',
        "ctx = context\nreturn ctx",
    ],
)
def test_anything_but_a_literal_key_may_touch_both(body: str) -> None:
    assert reach_of(tool(body, "key: str")).scopes == BOTH


def test_callbacks_read_through_callback_context() -> None:
    source = (
        "def before_tool_callback(tool, input, callback_context):\n"
        '    callback_context.state["user:seen"] = True\n'
    )
    assert reach_of(source).scopes == {USER}


def test_tools_named_and_any_tool() -> None:
    assert reach_of(tool("return tools.other({}), tools.lookup_get({})")).tools == {"other", "lookup_get"}
    assert not reach_of(tool("return tools.other({})")).any_tool
    assert reach_of(tool("return getattr(tools, key)({})", "key: str")).any_tool


def test_unparsable_code_may_touch_anything() -> None:
    found = reach_of("def f(:\n")
    assert found.scopes == BOTH and found.any_tool


SESSION_ONLY = tool('context.state["n"] = 1')
APP_WRITER = 'def writer() -> None:\n    """Writes."""\n    context.state["app:x"] = 1\n'
CALLS_WRITER = 'def caller() -> object:\n    """Calls."""\n    return tools.writer({})\n'
CALLS_ANY = 'def any_caller(name: str) -> object:\n    """Calls."""\n    return getattr(tools, name)({})\n'


def test_a_call_reaches_the_tools_it_calls_and_the_tool_hooks() -> None:
    with Runtime() as rt:
        for source in (SESSION_ONLY, APP_WRITER, CALLS_WRITER, CALLS_ANY):
            rt.add_tool(source)

        def scopes(name: str) -> frozenset[Scope]:
            return call_scopes(rt.registry, rt.hooks, tool=rt.get_tool(name))

        assert scopes("f") == frozenset()
        assert scopes("writer") == {APP}
        assert scopes("caller") == {APP}
        assert scopes("any_caller") == {APP}
        rt.add_callback(
            "def after_tool_callback(tool, input, callback_context, tool_response):\n"
            '    callback_context.state["user:calls"] = 1\n'
        )
        assert scopes("f") == {USER}
        assert scopes("caller") == BOTH
        assert call_scopes(rt.registry, rt.hooks, kind="before_agent") == frozenset()
        rt.add_callback("def before_agent_callback(callback_context):\n    return tools.caller({})\n")
        assert call_scopes(rt.registry, rt.hooks, kind="before_agent") == BOTH
