"""Session and event shapes, state deltas and key scopes."""

from __future__ import annotations

import json
import math

import pytest

from runtime._session import Event, Session, call_events
from runtime._state import Scope, StateDelta, encode_json, scope_of
from sandbox.common.errors import InvalidState


@pytest.mark.parametrize(
    ("key", "scope"),
    [
        ("app:theme", Scope.APP),
        ("user:name", Scope.USER),
        ("temp:scratch", Scope.TEMP),
        ("cart", Scope.SESSION),
        ("application:x", Scope.SESSION),
        ("App:x", Scope.SESSION),
    ],
)
def test_scope_of(key: str, scope: Scope) -> None:
    assert scope_of(key) is scope


def test_delta_round_trips_its_json_shape() -> None:
    data = {"set": {"a": 1, "b": {"c": [1, None]}}, "deleted": ["d"]}
    delta = StateDelta.from_dict(data)
    assert delta.to_dict() == data
    assert json.loads(json.dumps(delta.to_dict())) == data
    assert StateDelta.from_dict(None) == StateDelta() == StateDelta.from_dict({})
    assert not StateDelta() and StateDelta(deleted=["x"])


@pytest.mark.parametrize(
    "bad",
    [
        [],
        {"set": [1]},
        {"set": {1: "x"}},
        {"deleted": "key"},
        {"deleted": [1]},
        {"set": {}, "extra": 1},
    ],
)
def test_malformed_delta_is_invalid_state(bad: object) -> None:
    with pytest.raises(InvalidState):
        StateDelta.from_dict(bad)  # type: ignore[arg-type]


def test_apply_to_sets_then_deletes_and_leaves_the_input_alone() -> None:
    state = {"a": 1, "b": 2}
    new = StateDelta({"a": 10, "c": 3, "b": 5}, ["b", "missing"]).apply_to(state)
    assert new == {"a": 10, "c": 3}
    assert state == {"a": 1, "b": 2}


def test_delta_split_by_scope() -> None:
    delta = StateDelta({"app:a": 1, "user:u": 2, "s": 3, "temp:t": 4}, ["app:x", "temp:y", "z"])
    assert delta.only(Scope.APP) == StateDelta({"app:a": 1}, ["app:x"])
    assert delta.only(Scope.USER) == StateDelta({"user:u": 2}, [])
    assert delta.only(Scope.SESSION) == StateDelta({"s": 3}, ["z"])
    assert delta.without_temp() == StateDelta({"app:a": 1, "user:u": 2, "s": 3}, ["app:x", "z"])


def test_check_json_names_the_key() -> None:
    StateDelta({"ok": [1, "x", None, {"y": 1.5}]}).check_json()
    with pytest.raises(InvalidState, match="'bad'"):
        StateDelta({"ok": 1, "bad": math.inf}).check_json()
    with pytest.raises(InvalidState, match="'obj'"):
        StateDelta({"obj": object()}).check_json()
    assert encode_json({"é": 1}, "x") == '{"é":1}'


def test_call_events_shape() -> None:
    delta = StateDelta({"n": 1, "temp:t": 2}, ["old"])
    called, answered = call_events(
        call_id="c1",
        tool="add_points",
        args={"points": 5},
        response={"result": {"total": 5}},
        delta=delta,
        author="support_agent",
        invocation_id="inv-1",
    )
    assert called.to_dict()["content"] == {
        "role": "model",
        "parts": [{"function_call": {"id": "c1", "name": "add_points", "args": {"points": 5}}}],
    }
    assert called.actions.state_delta == {"set": {}, "deleted": []}
    assert answered.to_dict()["content"] == {
        "role": "user",
        "parts": [
            {"function_response": {"id": "c1", "name": "add_points", "response": {"result": {"total": 5}}}}
        ],
    }
    assert answered.actions.state_delta == {"set": {"n": 1}, "deleted": ["old"]}
    for event in (called, answered):
        assert (event.author, event.invocation_id) == ("support_agent", "inv-1")
    assert called.id != answered.id and called.timestamp <= answered.timestamp


def test_session_json_round_trip_keeps_none_in_values() -> None:
    events = call_events(
        call_id="c1", tool="t", args={"x": None}, response={"result": None}, delta=StateDelta(), author="a"
    )
    events.append(Event(author="user", content={"role": "user", "parts": [{"text": "hi"}]}))
    session = Session(
        id="s1", app_name="app", user_id="u", state={"k": None}, events=events, last_update_time=1.0
    )
    data = json.loads(json.dumps(session.to_dict()))
    assert data["state"] == {"k": None}
    assert data["events"][0]["content"]["parts"][0]["function_call"]["args"] == {"x": None}
    assert data["events"][2]["content"]["parts"] == [{"text": "hi"}]
    assert Session.model_validate(data) == session


def test_then_composes_deltas_in_order() -> None:
    first = StateDelta({"a": 1, "b": 2}, ["c"])
    later = StateDelta({"c": 3}, ["a"])
    combined = first.then(later)
    assert combined == StateDelta({"b": 2, "c": 3}, ["a"])
    state = {"a": 0, "c": 0, "d": 4}
    assert combined.apply_to(state) == later.apply_to(first.apply_to(state))
