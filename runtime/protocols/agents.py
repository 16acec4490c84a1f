"""Agents API sessions: function tools out, ``required_actions`` in, ``tool_result`` events back.

Every result is stored by the runtime under (session id, turn id, call id) before it is sent:
handling the same actions again (after a crash, a disconnect, a rejected send) returns the
stored results and never runs a tool twice. An action whose earlier run started but stored
no result is reported as an unknown outcome unless its tool was registered idempotent.

An ``ASYNCHRONOUS`` tool's result event says ``{"status": "pending"}`` at once (the session goes
on). A result is sent once per action, so ``drive_session`` sends the tool's result later as a
user message naming the call (``finished_text``), once the session is idle and the tool has
ended; the session then runs another turn. ``handle_required_actions`` answers the pending
actions only: the result of a tool it started is committed in the session when the tool ends.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx2
from openai import APIConnectionError

from runtime._calls import ToolCall, TurnCall
from runtime._search import DEFAULT_LIMIT
from runtime.protocols import (
    error_text,
    finished_text,
    has_deferred,
    output_text,
    parse_arguments,
    refused,
    run_calls,
    search_deferred,
)
from runtime.protocols._steps import Blocking, Loop, NextItem, Pause, arun_steps, run_steps
from sandbox.common.errors import InvalidArguments, OutputTooLarge, StreamEnded

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._results import ToolResult
    from runtime._runtime import Runtime

__all__ = [
    "MAX_REQUEST_BYTES",
    "MAX_RESULT_BYTES",
    "RESULT_LIMIT",
    "adrive_session",
    "agent_tools",
    "ahandle_required_actions",
    "asend_results",
    "drive_session",
    "function_tool",
    "handle_required_actions",
    "idempotency_key",
    "result_batches",
    "send_results",
    "tool_result_event",
    "tool_search",
    "toolpen_call_id",
    "user_message",
]

TOOL_RESULT = "agent.session.input.tool_result"
MAX_RESULT_BYTES = 4_194_304
MAX_REQUEST_BYTES = 4_194_304
"""Largest body of one events request: the results of a turn beyond it go in several requests."""
REQUEST_OVERHEAD = 64
"""Bytes of a request body around its events (``{"events": [...]}``)."""
DEFAULT_RECONNECTS = 5
FINAL = ("idle", "failed")
FINAL_EVENTS = ("agent.session.idle", "agent.session.failed")
STREAM_ERRORS = (APIConnectionError, httpx2.TransportError)
"""A stream's connection dropping mid-way (the SDK's and its transport's, httpx2)."""
RESULT_MARGIN = 65_536
RESULT_LIMIT = MAX_RESULT_BYTES - RESULT_MARGIN
CONTENT_PART_TYPES = frozenset({"input_text", "input_image"})
MAX_ERROR_CHARS = 8_192


def function_tool(tool: Tool) -> dict[str, Any]:
    """``{type: "function", name, description, parameters}`` with ``additionalProperties: false``,
    and ``defer_loading: true`` for a deferred tool."""
    schema = tool.schema("responses")
    definition: dict[str, Any] = {
        "type": "function",
        "name": tool.name,
        "description": schema.get("description") or tool.spec.description or "",
        "parameters": {**schema["parameters"], "additionalProperties": False},
    }
    if tool.options.defer_loading:
        definition["defer_loading"] = True
    return definition


def agent_tools(runtime: Runtime) -> list[dict[str, Any]]:
    """``agent.tools``: every tool, deferred ones marked, and ``{"type": "tool_search"}`` when any is."""
    tools = [function_tool(tool) for tool in runtime.tools(include_deferred=True)]
    if has_deferred(runtime):
        tools.append({"type": "tool_search"})
    return tools


def tool_search(runtime: Runtime, query: str, limit: int = DEFAULT_LIMIT) -> list[dict[str, Any]]:
    """The definitions of the deferred tools that best match ``query`` (for client-side search)."""
    return [function_tool(tool) for tool in search_deferred(runtime, query, limit)]


def toolpen_call_id(turn_id: str, call_id: str) -> str:
    """The runtime's call id for one action: call ids are unique within a turn, not a session.

    ``%`` and ``:`` inside the ids are percent-encoded, so that turn "t:1" with call "c" and
    turn "t" with call "1:c" do not share a stored result (the second would replay the
    first's). Ids without them keep the plain ``"{turn_id}:{call_id}"`` of earlier versions.
    """
    return f"{_escape_id(turn_id)}:{_escape_id(call_id)}"


def _escape_id(value: str) -> str:
    return value.replace("%", "%25").replace(":", "%3A")


def _usable_id(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _field(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)


def _is_content_parts(output: Any) -> bool:
    return (
        isinstance(output, list)
        and bool(output)
        and all(isinstance(part, Mapping) and part.get("type") in CONTENT_PART_TYPES for part in output)
    )


def _result_size(output: str | list[Any]) -> int:
    return len((output if isinstance(output, str) else json.dumps(output)).encode())


def _too_large(size: int) -> OutputTooLarge:
    return OutputTooLarge(
        f"the tool result is {size:,} bytes; the Agents API takes at most {RESULT_LIMIT:,} bytes "
        f"(4 MiB = {MAX_RESULT_BYTES:,} bytes, less {RESULT_MARGIN:,} for its metadata). "
        "Ask for less data, for example fewer items or a summary."
    )


def tool_result_event(turn_id: str, call_id: str, result: ToolResult) -> dict[str, Any]:
    """The ``agent.session.input.tool_result`` event for one result, within the size limit."""
    event: dict[str, Any] = {"type": TOOL_RESULT, "turn_id": turn_id, "call_id": call_id}
    error = result.error
    if result.success:
        output = result.output if _is_content_parts(result.output) else output_text(result.output)
        size = _result_size(output)
        if size <= RESULT_LIMIT:
            return {**event, "success": True, "output": output}
        error = _too_large(size)
    return {**event, "success": False, "error": error_text(error)[:MAX_ERROR_CHARS]}


def handle_required_actions(
    session: Any, runtime: Runtime, *, context: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Run the pending function calls of ``session`` (an SDK ``AgentSession`` or a dict).

    Returns one ``agent.session.input.tool_result`` event per ``function_call`` action, in
    order. Calls run in the toolpen session named after the agents session, with call id
    ``"{turn_id}:{call_id}"``, so a second handling replays the stored results; one after the
    other, or at once when the runtime's ``tool_execution_mode`` is ``PARALLEL`` (an app's). An
    ``ASYNCHRONOUS`` tool answers ``{"status": "pending"}`` and commits its result when it ends.
    """
    events, _ = _handle(session, runtime, context)
    return events


def _handle(
    session: Any, runtime: Runtime, context: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], list[tuple[str, TurnCall]]]:
    """The result events of the pending actions, and the asynchronous calls among them (with
    the action's call id) whose result comes later."""
    session_id = _field(session, "id")
    actions = [
        action
        for action in _field(session, "required_actions") or ()
        if _field(action, "type") == "function_call"
    ]
    requests = [_request(session_id, action) for action in actions]
    answers = run_calls(runtime, requests, define=function_tool, session_id=session_id, context=context)
    events = [
        tool_result_event(_field(action, "turn_id"), _field(action, "call_id"), answered.result)
        for action, answered in zip(actions, answers, strict=True)
    ]
    started = [
        (str(_field(action, "call_id")), answered)
        for action, answered in zip(actions, answers, strict=True)
        if answered.later is not None
    ]
    return events, started


def _request(session_id: Any, action: Any) -> ToolCall | TurnCall:
    turn_id, call_id = _field(action, "turn_id"), _field(action, "call_id")
    name = str(_field(action, "name"))
    try:
        # Missing ids used to become the text "None": unrelated sessions shared the toolpen
        # session "None", and id-less actions shared one stored result.
        if not (_usable_id(session_id) and _usable_id(turn_id) and _usable_id(call_id)):
            raise InvalidArguments("the session id, turn_id and call_id must be non-empty strings")
        args = parse_arguments(_field(action, "arguments"))
    except InvalidArguments as error:
        return refused(name, error)
    return ToolCall(name, args, toolpen_call_id(turn_id, call_id))


def idempotency_key(session_id: str, events: list[dict[str, Any]]) -> str:
    """The same key for the same results, so a re-sent batch is applied once."""
    ids = sorted(f"{event['turn_id']}:{event['call_id']}" for event in events)
    digest = hashlib.sha256(json.dumps([session_id, ids]).encode()).hexdigest()
    return f"toolpen-{digest[:40]}"


def result_batches(
    events: list[dict[str, Any]], limit: int = MAX_REQUEST_BYTES
) -> list[list[dict[str, Any]]]:
    """``events`` in order, in batches whose JSON stays within ``limit`` bytes (one event alone
    is at most ``RESULT_LIMIT`` plus its ids, so each fits a batch of its own)."""
    batches: list[list[dict[str, Any]]] = []
    size = limit
    for event in events:
        event_size = len(json.dumps(event).encode()) + 2
        if size + event_size > limit:
            batches.append([])
            size = REQUEST_OVERHEAD
        batches[-1].append(event)
        size += event_size
    return batches


def send_results(client: Any, session_id: str, events: list[dict[str, Any]]) -> None:
    """POST the results to the session's events endpoint, each request at most 4 MiB, each
    with an ``Idempotency-Key`` of its own results."""
    run_steps(_sending(client, session_id, events))


async def asend_results(client: Any, session_id: str, events: list[dict[str, Any]]) -> None:
    """``send_results`` with an ``openai.AsyncOpenAI`` client."""
    await arun_steps(_sending(client, session_id, events))


def _sending(client: Any, session_id: str, events: list[dict[str, Any]]) -> Loop[None]:
    for batch in result_batches(events):
        yield client.beta.agents.sessions.events.create(
            session_id, events=batch, idempotency_key=idempotency_key(session_id, batch)
        )


async def ahandle_required_actions(
    session: Any, runtime: Runtime, *, context: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """``handle_required_actions`` for asyncio: the same calls, run in a worker thread."""
    return await asyncio.to_thread(handle_required_actions, session, runtime, context=context)


def user_message(text: str) -> dict[str, Any]:
    """An ``agent.session.input.message`` event with one user text."""
    content = [{"type": "input_text", "text": text}]
    return {
        "type": "agent.session.input.message",
        "input": [{"type": "message", "role": "user", "content": content}],
    }


def drive_session(
    client: Any,
    session_id: str,
    runtime: Runtime,
    *,
    input: str | None = None,
    context: dict[str, Any] | None = None,
    reconnects: int = DEFAULT_RECONNECTS,
) -> Any:
    """Follow a session with an ``openai.OpenAI`` client until it is idle or failed; returns it.

    Subscribes to the session's events first, then answers the actions already pending (the
    resume after a disconnect), sends ``input`` as a user message when given, and answers each
    ``agent.session.requires_action`` event as it comes. Results are stored before they are
    sent. When the stream ends (or breaks) before the session is idle or failed, it subscribes
    again and answers what is pending from the stored results; after ``reconnects`` streams in a
    row that ended without news it raises ``StreamEnded``.
    """
    return run_steps(_Drive(client, session_id, runtime, context, input, reconnects).loop())


async def adrive_session(
    client: Any,
    session_id: str,
    runtime: Runtime,
    *,
    input: str | None = None,
    context: dict[str, Any] | None = None,
    reconnects: int = DEFAULT_RECONNECTS,
) -> Any:
    """``drive_session`` with an ``openai.AsyncOpenAI`` client; tools run in worker threads."""
    return await arun_steps(_Drive(client, session_id, runtime, context, input, reconnects).loop())


class _Drive:
    """The loop of ``drive_session`` and ``adrive_session``, for either client
    (``runtime/protocols/_steps.py``), and what it tracks across reconnects."""

    def __init__(
        self,
        client: Any,
        session_id: str,
        runtime: Runtime,
        context: dict[str, Any] | None,
        input: str | None,
        reconnects: int,
    ) -> None:
        self.client = client
        self.sessions = client.beta.agents.sessions
        self.session_id = session_id
        self.runtime = runtime
        self.context = context
        self._input = input
        self._reconnects = reconnects
        self._quiet = 0  # streams in a row that ended without an event
        self._started: list[tuple[str, TurnCall]] = []
        """Asynchronous calls answered pending whose result the session has not been sent yet."""

    def loop(self) -> Loop[Any]:
        """Subscribe, follow, and subscribe again until the session is idle or failed."""
        while True:
            try:
                stream = yield self.sessions.events.stream(self.session_id)
                try:
                    final = yield from self._follow(stream)
                finally:
                    yield stream.close()
                if final is not None:
                    return final
            except STREAM_ERRORS:
                pass  # a dropped connection: like an ended stream
            self._ended((yield self.sessions.retrieve(self.session_id)).status)
            yield Pause(min(0.05 * 2**self._quiet, 2.0))

    def _follow(self, stream: Any) -> Loop[Any]:
        """One subscription: the idle or failed session, or None when the stream ends first."""
        session = yield self.sessions.retrieve(self.session_id)
        if session.status == "requires_action":
            yield from self._answer(session)
        if self._input is not None:
            text, self._input = self._input, None
            yield self.sessions.events.create(self.session_id, events=[user_message(text)])
        elif session.status in FINAL and not (
            session.status == "idle" and (yield from self._send_finished())
        ):
            return session
        while (event := (yield NextItem(stream))) is not None:
            self._quiet = 0
            if event.type == "agent.session.requires_action":
                yield from self._answer(event.session)
            elif event.type in FINAL_EVENTS:
                if event.type == "agent.session.idle" and (yield from self._send_finished()):
                    continue
                return event.session
        return None

    def _answer(self, session: Any) -> Loop[None]:
        """Run the session's pending calls (their results stored first), then send the results."""
        events, started = yield Blocking(_handle, session, self.runtime, self.context)
        self._started.extend(started)
        yield from _sending(self.client, self.session_id, events)

    def _send_finished(self) -> Loop[bool]:
        """The idle session is sent the results of the asynchronous calls it was answered
        pending for, as one user message, once they end; False when there are none."""
        if not self._started:
            return False
        text = yield Blocking(finished_text, self._started)
        self._started = []
        yield self.sessions.events.create(self.session_id, events=[user_message(text)])
        return True

    def _ended(self, status: str) -> None:
        """A stream ended with the session in ``status``; ``StreamEnded`` after too many."""
        self._quiet += 1
        if self._quiet > self._reconnects:
            raise StreamEnded(
                f"the event stream of session {self.session_id!r} ended {self._quiet} times in a row "
                f"without news while the session was {status!r}"
            )
