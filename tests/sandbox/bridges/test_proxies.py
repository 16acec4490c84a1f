"""``context`` and ``tools`` as tool code sees them: state deltas, read-only context, nested tools."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.bridges.proxies import Context, State, state_delta
from sandbox.common.errors import BudgetExceeded, InvalidState
from sandbox.process.pool import WorkerPool
from tests.sandbox.process.test_pool import run


@pytest.fixture(scope="module")
def pool():
    with WorkerPool(size=2) as pool:
        yield pool


def test_state_records_sets_and_deletes():
    state = State({"a": 1, "b": 2})
    state["c"] = [1]
    del state["a"]
    assert dict(state) == {"b": 2, "c": [1]}
    assert state_delta(state) == {"set": {"c": [1]}, "deleted": ["a"]}


def test_in_place_changes_to_nested_values_land_in_the_delta():
    state = State({"cart": ["apple"], "profile": {"points": 1}, "same": {"x": 1}})
    state["cart"].append("pear")
    state["profile"]["points"] += 1
    assert state["same"] == {"x": 1}
    assert state_delta(state) == {"set": {"cart": ["apple", "pear"], "profile": {"points": 2}}, "deleted": []}


def test_a_state_left_equal_still_reports_what_was_assigned_or_retyped():
    state = State({"a": 1, "b": "x", "n": 2})
    state["a"] = 1  # assigned its own value: still set
    state["gone"] = 5
    del state["gone"]  # assigned then deleted: neither set nor deleted
    dict.__setitem__(state, "n", 2.0)  # equal but of another type: set
    assert state_delta(state) == {"set": {"a": 1, "n": 2.0}, "deleted": []}
    moved = State({"a": 1, "b": 2})
    value = moved.pop("a")
    dict.__setitem__(moved, "a", value)  # same keys and values, another order: nothing changed
    assert state_delta(moved) == {"set": {}, "deleted": []}


@pytest.mark.parametrize("value", [print, {1, 2}, float("nan"), float("inf"), object()])
def test_values_that_are_not_json_are_refused_naming_the_key(value):
    with pytest.raises(InvalidState, match="'bad'"):
        State({})["bad"] = value


def test_a_nested_value_made_invalid_later_fails_at_the_end():
    state = State({})
    state["box"] = {"items": []}
    state["box"]["items"].append(float("nan"))
    with pytest.raises(InvalidState, match="'box'"):
        state_delta(state)


def test_context_is_read_only():
    context = Context({"session_id": "s1", "state": {}})
    assert context.session_id == "s1"
    with pytest.raises(AttributeError):
        context.session_id = "other"


def test_tool_code_sees_the_context(pool):
    snapshot = {
        "state": {"n": 1},
        "user_content": {"role": "user", "parts": [{"text": "hi"}]},
        "events": [{"author": "user"}],
        "function_call_id": "fc1",
        "session_id": "s1",
        "invocation_id": "i1",
        "agent_name": "agent",
    }
    done = run(
        pool,
        """
        def describe() -> list:
            c = context
            return [c.user_content["parts"][0]["text"], len(c.events), c.function_call_id,
                    c.session_id, c.invocation_id, c.agent_name, c.state["n"]]
        """,
        context=snapshot,
    )
    assert done.output == ["hi", 1, "fc1", "s1", "i1", "agent", 1]


def test_storing_a_function_in_state_fails_the_call(pool):
    done = run(pool, "def f():\n    context.state['fn'] = f\n    return 1\n")
    assert done.error.kind == "invalid_state"
    assert "'fn'" in done.error.message and done.error.line == 2


def test_in_place_mutation_inside_a_worker_is_committed(pool):
    done = run(
        pool, "def f():\n    context.state['cart'].append('pear')\n", context={"state": {"cart": ["apple"]}}
    )
    assert done.state_delta.to_dict() == {"set": {"cart": ["apple", "pear"]}, "deleted": []}


def test_nested_tools_see_current_state_and_their_delta_is_applied(pool):
    seen: list[dict[str, Any]] = []

    def host(target: str, method: str, params: dict[str, Any]) -> Any:
        assert (target, method) == ("tools", "call")
        seen.append(params)
        return {"output": {"ok": True}, "state_delta": {"set": {"from_nested": 1}, "deleted": ["old"]}}

    done = run(
        pool,
        """
        def outer() -> dict:
            context.state["mine"] = "x"
            result = tools.crm_service_get_cart_information({"id": 3})
            return {"result": result, "keys": sorted(context.state.keys())}
        """,
        context={"state": {"old": 0}},
        rpc=host,
    )
    assert seen == [
        {
            "name": "crm_service_get_cart_information",
            "args": {"id": 3},
            "state_delta": {"set": {"mine": "x"}, "deleted": []},  # the host holds the rest
        }
    ]
    assert done.output == {"result": {"ok": True}, "keys": ["from_nested", "mine"]}
    assert done.state_delta.to_dict() == {"set": {"mine": "x", "from_nested": 1}, "deleted": ["old"]}


def test_a_nested_tools_delete_of_a_value_never_read_does_not_fetch_it(pool):
    """A large value left in the host and deleted by a nested tool is dropped unread: the host
    gets the ``tools.call`` and no ``state.read`` (issue 36)."""
    asked: list[tuple[str, str]] = []

    def host(target: str, method: str, params: dict[str, Any]) -> Any:
        asked.append((target, method))
        return {"output": 1, "state_delta": {"set": {}, "deleted": ["big", "gone"]}}

    done = run(
        pool,
        """
        def outer() -> list:
            tools.inner({})
            return sorted(context.state)
        """,
        context={"state": {"big": None, "small": 1}, "lazy_state": {"big": 20_000}},
        rpc=host,
    )
    assert done.error is None, done.error
    assert asked == [("tools", "call")]
    assert done.output == ["small"]
    assert done.state_delta.to_dict() == {"set": {}, "deleted": ["big"]}


def test_a_failing_nested_tool_can_be_caught(pool):
    def host(target: str, method: str, params: dict[str, Any]) -> Any:
        raise BudgetExceeded("too many nested calls")

    done = run(
        pool,
        """
        def outer() -> str:
            try:
                tools.other({})
            except Exception as error:
                return error.kind
        """,
        rpc=host,
    )
    assert done.output == "budget_exceeded"


def test_changes_made_past_the_dict_methods_still_land_in_the_delta():
    state = State({"a": 1, "b": {"n": 1}, "c": True, "gone": 0})
    dict.update(state, {"x": [1]})  # the C method, not State.update
    dict.__setitem__(state, "c", 1)  # equal to True, but another JSON value
    state["b"]["n"] = 1.5
    state.pop("gone")
    assert isinstance(state, dict) and state.copy() == dict(state)
    assert state_delta(state) == {"set": {"x": [1], "c": 1, "b": {"n": 1.5}}, "deleted": ["gone"]}
