"""The CES contexts built from plain values, as a user's tests (and cxas-scrapi's) build them."""

from __future__ import annotations

import pytest

from sandbox.bridges.ces_context import CallbackContext, ToolContext
from sandbox.bridges.ces_names import CES_GLOBAL_NAMES
from sandbox.bridges.ces_types import CES_CLASSES, Content, Event, EventActions, Part


def test_a_context_from_plain_values_has_scrapis_fields_and_defaults() -> None:
    context = CallbackContext(state={"a": "1"})
    assert context.state == {"a": "1"} and context.variables is context.state
    assert (context.invocation_id, context.agent_name, context.session_id) == ("", "", "")
    assert context.events == [] and context.user_content is None
    assert isinstance(context.actions, EventActions) and context.actions.state_delta == {}
    assert context.streaming_stage is None
    assert (context.language_code, context.project_id, context.location, context.app_id) == ("", "", "", "")
    assert (context.project_number, context.turn_index) == (0, 0)


def test_camel_case_keywords_and_objects_or_json_are_taken() -> None:
    context = ToolContext(
        functionCallId="fc-1",
        userContent={"role": "user", "parts": [{"text": "hi"}]},
        events=[Event(author="user", content=Content(role="user", parts=[Part(text="earlier")]))],
        turnIndex=3,
        projectNumber=42,
    )
    assert context.function_call_id == "fc-1" and context.user_content.parts[0].text == "hi"
    assert [part.text for part in context.get_last_user_input()] == ["earlier"]
    assert (context.turn_index, context.project_number) == (3, 42)


def test_a_context_of_ones_own_may_be_set_as_scrapi_tests_do() -> None:
    context = CallbackContext(state={})
    context.user_content = Content(role="user", parts=[Part(text="<event>session start</event>")])
    assert context.user_content.parts[0].text == "<event>session start</event>"
    context.variables = {"b": "2"}
    assert context.state == {"b": "2"} and context.variables is context.state
    context.language_code = "de-DE"
    assert context.language_code == "de-DE"
    with pytest.raises(AttributeError):
        context.anything_else = 1


def test_the_calls_context_stays_read_only() -> None:
    context = ToolContext({"state": {"x": "1"}, "user_content": {"role": "user", "parts": []}})
    for name in ("user_content", "state", "language_code", "actions"):
        with pytest.raises(AttributeError, match="read-only"):
            setattr(context, name, None)


def test_the_snapshot_gives_the_session_fields() -> None:
    context = ToolContext({"app_id": "cymbal", "turn_index": 2, "actions": {"escalate": True}})
    assert (context.app_id, context.turn_index, context.actions.escalate) == ("cymbal", 2, True)


def test_removing_an_unset_variable_raises_key_error_as_scrapi_does() -> None:
    context = CallbackContext(state={"a": "1"})
    context.remove_variable("a")
    assert context.state == {}
    with pytest.raises(KeyError):
        context.remove_variable("a")


def test_unknown_keywords_and_mixed_forms_are_refused_with_the_fields() -> None:
    with pytest.raises(TypeError, match="takes actions, agent_name"):
        CallbackContext(stat={})
    with pytest.raises(TypeError, match="not both"):
        CallbackContext(state={}, variables={})
    with pytest.raises(TypeError, match="not both"):
        CallbackContext({"state": {}}, None, state={})


def test_the_global_names_check_accepts_hold_every_ces_class() -> None:
    assert set(CES_CLASSES) <= CES_GLOBAL_NAMES
