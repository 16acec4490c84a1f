"""``context.events`` of a session call, on every store: read from the store only when the
tool's code asks for them (over the call's channel to the host), and then the same events.

A tool that never reads them costs no event read, however long the session: the store's own
``event_reads`` counter stays where it was. One that reads them sees every stored event, as
the store returns them, in a callback and a nested tool too. A call without a session whose
context gives its ``events`` as a function (the ADK adapter's) calls it the same way: on first use.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime import Runtime
from tests.runtime.store.test_store import STORE_URLS, fresh_store

NOTE = '''
def note(text: str) -> int:
    """Notes a text in the session.

    Args:
        text: What to note.
    """
    context.state["notes"] = context.state.get("notes", []) + [text]
    return len(context.state["notes"])
'''

SEEN = '''
def seen() -> list:
    """What the tool sees of the session's history."""
    return [event.model_dump(mode="json") for event in context.events]
'''

NESTED = '''
def nested() -> list:
    """The history as a nested tool sees it, and this tool's own count of it."""
    return [len(context.events), tools.seen()]
'''


@pytest.fixture(params=STORE_URLS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_store(str(request.param), tmp_path)


@pytest.fixture
def rt(store_url: str) -> Iterator[Runtime]:
    with Runtime(store=store_url, app_name="events-test") as runtime:
        for source in (NOTE, SEEN, NESTED):
            runtime.add_tool(source)
        yield runtime


def seen_by_tools(rt: Runtime, session_id: str) -> list[dict[str, object]]:
    """The stored events, as a tool's ``context.events`` shows them (``seen``'s output)."""
    with Runtime(store="memory://") as plain:
        plain.add_tool(SEEN)
        events = [event.to_dict() for event in rt.store.require_session(session_id).events]
        result = plain.call("seen", {}, context={"events": events})
    assert result.success, result.error
    return list(result.output)


def test_a_tool_that_never_reads_events_reads_none_from_the_store(rt: Runtime) -> None:
    for index in range(5):
        assert rt.call("note", {"text": f"n{index}"}, session_id="s").output == index + 1
    assert rt.store.event_reads == 0
    assert len(rt.store.require_session("s").events) == 10  # the events are stored all the same


def test_a_tool_that_reads_events_sees_every_stored_event(rt: Runtime) -> None:
    for index in range(3):
        rt.call("note", {"text": f"n{index}"}, session_id="s")
    expected = seen_by_tools(rt, "s")
    before = rt.store.event_reads
    result = rt.call("seen", {}, session_id="s")
    assert result.success, result.error
    assert result.output == expected
    assert len(expected) == 6 and expected[0]["content"]["parts"][0]["function_call"]["name"] == "note"
    assert expected[1]["actions"]["state_delta"] == {"notes": ["n0"]}
    assert rt.store.event_reads == before + 1


def test_a_nested_tool_and_its_caller_share_one_read(rt: Runtime) -> None:
    rt.call("note", {"text": "a"}, session_id="s")
    expected = seen_by_tools(rt, "s")
    before = rt.store.event_reads
    result = rt.call("nested", {}, session_id="s")
    assert result.success, result.error
    assert result.output == [2, expected]
    assert rt.store.event_reads == before + 1


def test_events_given_with_a_call_without_session_are_read_from_the_context(rt: Runtime) -> None:
    given = [{"author": "user", "content": {"role": "user", "parts": [{"text": "hi"}]}}]
    result = rt.call("seen", {}, context={"events": given})
    assert result.success, result.error
    assert [(event["author"], event["content"]["parts"][0]["text"]) for event in result.output] == [
        ("user", "hi")
    ]
    assert rt.store.event_reads == 0


def test_events_given_as_a_function_are_read_only_when_the_code_asks_and_once() -> None:
    given = [{"author": "user", "content": {"role": "user", "parts": [{"text": "hi"}]}}]
    reads: list[int] = []

    def events() -> list[dict[str, object]]:  # a host's history, converted when asked for
        reads.append(1)
        return given

    with Runtime(store="memory://") as plain:
        for source in (NOTE, SEEN, NESTED):
            plain.add_tool(source)
        assert plain.call("note", {"text": "a"}, context={"events": events}).success
        assert reads == []
        result = plain.call("nested", {}, context={"events": events})
        assert result.success, result.error
        assert result.output[0] == 1 and result.output[1][0]["content"]["parts"][0]["text"] == "hi"
        assert reads == [1]  # the caller and its nested tool share one read


HISTORY_CALLBACK = """
def before_agent_callback(callback_context):
    texts = [event.content.parts[0].text for event in callback_context.events]
    callback_context.state["history"] = "|".join(texts)
    return None
"""


def test_events_given_with_a_session_call_are_the_history_its_code_sees(rt: Runtime) -> None:
    rt.call("note", {"text": "stored"}, session_id="s")
    given = [
        {"author": "user", "content": {"role": "user", "parts": [{"text": "hi"}]}},
        {"author": "agent", "content": {"role": "model", "parts": [{"text": "hello"}]}},
    ]
    rt.add_callback(HISTORY_CALLBACK)
    before = rt.store.event_reads
    ran = rt.run_callbacks("before_agent", context={"events": given}, session_id="s")
    assert ran.success, ran.error
    assert ran.state["history"] == "hi|hello"
    result = rt.call("seen", {}, context={"events": given}, session_id="s")
    assert [event["content"]["parts"][0]["text"] for event in result.output] == ["hi", "hello"]
    assert rt.store.event_reads == before  # the host's history, not the store's
    # without them, the stored ones: note's 2, the callback's state change, the first seen's 2
    assert len(rt.call("seen", {}, session_id="s").output) == 5
