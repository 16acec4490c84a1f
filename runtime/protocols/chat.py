"""Chat Completions function calling (OpenAI-compatible): tools out, tool calls in, tool messages back.

``handle_tool_calls`` answers one assistant message; ``run_chat`` drives a conversation with an
``openai`` client until the model answers without tool calls. Tool-call ids may repeat (some
servers send the function name as the id), so replies keep the order of the calls and are
never matched by id.

An ``ASYNCHRONOUS`` tool's reply is ``{"status": "pending"}`` at once (the model goes on). A tool
message can only answer the assistant message just before it, so ``run_chat`` sends the tool's
result later as a user message naming the call (``finished_text``): before the next request
once the tool has ended, and, when the model answers without tool calls while one still runs,
once it ends, for the model to answer again. ``handle_tool_calls`` answers one message only:
the result of a tool it started is committed in the session when the tool ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runtime._calls import ToolCall, TurnCall
from runtime.protocols import (
    TOOL_SEARCH,
    TOOL_SEARCH_DESCRIPTION,
    TOOL_SEARCH_PARAMETERS,
    error_text,
    finished_text,
    has_deferred,
    output_text,
    parse_arguments,
    refused,
    run_calls,
)
from runtime.protocols._steps import Blocking, Loop, arun_steps, run_steps
from runtime.protocols.profiles import ModelProfile, profile_for, shape_request
from sandbox.common.errors import BudgetExceeded, InvalidArguments

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._runtime import Runtime

__all__ = [
    "DEFAULT_MAX_TURNS",
    "ChatRun",
    "ahandle_tool_calls",
    "arun_chat",
    "chat_tools",
    "handle_tool_calls",
    "run_chat",
    "tool_definition",
    "tool_search_definition",
]

DEFAULT_MAX_TURNS = 10


def tool_definition(tool: Tool, *, strict: bool = False) -> dict[str, Any]:
    """``{"type": "function", "function": {name, description, parameters}}`` for one tool."""
    return tool.schema("openai", strict=strict)


def tool_search_definition() -> dict[str, Any]:
    """The ``tool_search`` function tool (Chat Completions has no built-in tool search)."""
    return {
        "type": "function",
        "function": {
            "name": TOOL_SEARCH,
            "description": TOOL_SEARCH_DESCRIPTION,
            "parameters": TOOL_SEARCH_PARAMETERS,
        },
    }


def chat_tools(runtime: Runtime, *, strict: bool = False) -> list[dict[str, Any]]:
    """The initial ``tools`` list: every tool not deferred, plus ``tool_search`` when some are."""
    tools = [tool_definition(tool, strict=strict) for tool in runtime.tools(include_deferred=False)]
    if has_deferred(runtime):
        tools.append(tool_search_definition())
    return tools


def _as_dict(value: Any) -> dict[str, Any]:
    """A dict, or an ``openai`` SDK model as the dict it was parsed from."""
    if isinstance(value, Mapping):
        return dict(value)
    return value.model_dump(exclude_none=True)


@dataclass(frozen=True)
class _Reply:
    message: dict[str, Any]
    answered: TurnCall


def _request(call: Mapping[str, Any]) -> ToolCall | TurnCall:
    function = _as_dict(call.get("function") or {})
    name = str(function.get("name", ""))
    try:
        return ToolCall(name, parse_arguments(function.get("arguments")))
    except InvalidArguments as error:
        return refused(name, error)


def _reply(call: Mapping[str, Any], answered: TurnCall) -> _Reply:
    result = answered.result
    content = output_text(result.output) if result.success else error_text(result.error)
    return _Reply({"role": "tool", "tool_call_id": call.get("id", ""), "content": content}, answered)


def _replies(
    message: Any, runtime: Runtime, session_id: str | None, context: dict[str, Any] | None
) -> list[_Reply]:
    """The replies to a message's tool calls, run by the runtime's ``tool_execution_mode``."""
    calls = [_as_dict(call) for call in _as_dict(message).get("tool_calls") or []]
    requests = [_request(call) for call in calls]
    answers = run_calls(runtime, requests, define=tool_definition, session_id=session_id, context=context)
    return [_reply(call, answered) for call, answered in zip(calls, answers, strict=True)]


def handle_tool_calls(
    message: Any,
    runtime: Runtime,
    *,
    session_id: str | None = None,
    context: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Run every tool call of an assistant message (dict or SDK object): one after the other, or
    at once when the runtime's ``tool_execution_mode`` is ``PARALLEL`` (an app's, as in CES);
    an ``ASYNCHRONOUS`` tool answers ``{"status": "pending"}`` and commits its result when it ends.

    Returns one ``{"role": "tool", "tool_call_id", "content"}`` per call, in the calls' order.
    A call that fails (unknown tool, arguments that are not JSON, a tool error) gets an error
    text the model can act on instead of raising. ``session_id`` runs the calls in that
    toolpen session; ``context`` is passed to each call.
    """
    return [reply.message for reply in _replies(message, runtime, session_id, context)]


@dataclass
class ChatRun:
    """A finished conversation: the whole transcript, the model's last message, the turns it took."""

    messages: list[dict[str, Any]]
    final: dict[str, Any]
    turns: int
    tools: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)


def _load(tools: list[dict[str, Any]], replies: Iterable[_Reply]) -> None:
    """Add the definitions ``tool_search`` returned to ``tools`` (once each)."""
    loaded = {tool["function"]["name"] for tool in tools}
    for reply in replies:
        output = reply.answered.result.output
        if reply.answered.result.success and isinstance(output, dict) and output.keys() == {"tools"}:
            for definition in output["tools"]:
                if definition["function"]["name"] not in loaded:
                    tools.append(definition)
                    loaded.add(definition["function"]["name"])


def _next_choice(tool_choice: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
    """After the first turn a forcing choice (required, named) would never let the model finish."""
    return "auto" if tool_choice == "required" or isinstance(tool_choice, dict) else tool_choice


class _Conversation:
    """The state of one ``run_chat``/``arun_chat``: what to send next, and what a reply does."""

    def __init__(
        self,
        runtime: Runtime,
        model: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        tool_choice: str | dict[str, Any] | None,
        profiles: Iterable[ModelProfile],
        session_id: str | None,
        context: dict[str, Any] | None,
        strict: bool,
        create_args: dict[str, Any],
    ) -> None:
        self.runtime = runtime
        self.model = model
        self.profile = profile_for(model, profiles)
        self.transcript = [dict(message) for message in messages]
        self.tools = chat_tools(runtime, strict=strict)
        self.notes: list[str] = []
        self.choice = tool_choice
        self.session_id = session_id
        self.context = context
        self.create_args = create_args
        self.started: list[tuple[str, TurnCall]] = []
        """Asynchronous calls answered pending whose result the model has not been sent yet."""

    def request(self) -> dict[str, Any]:
        """The next request, reshaped by the model's profile."""
        shaped = shape_request(self.profile, self.transcript, self.tools, self.choice)
        self.notes.extend(note for note in shaped.notes if note not in self.notes)
        request: dict[str, Any] = {"model": self.model, "messages": shaped.messages, **self.create_args}
        if shaped.tools:
            request["tools"] = shaped.tools
        if shaped.tool_choice is not None:
            request["tool_choice"] = shaped.tool_choice
        return request

    def answer(self, response: Any, turn: int) -> ChatRun | None:
        """Take the model's response: the finished run, or None after running its tool calls."""
        reply = _as_dict(response.choices[0].message)
        self.transcript.append(reply)
        if not reply.get("tool_calls"):
            if not self.started:
                return ChatRun(self.transcript, reply, turn, self.tools, self.notes)
            self._send_finished(wait=True)  # the model answers again once it has the results
            return None
        replies = _replies(reply, self.runtime, self.session_id, self.context)
        self.transcript.extend(r.message for r in replies)
        self.started.extend((str(r.message["tool_call_id"]), r.answered) for r in replies if r.answered.later)
        _load(self.tools, replies)
        self._send_finished(wait=False)
        self.choice = _next_choice(self.choice)
        return None

    def _send_finished(self, *, wait: bool) -> None:
        """The results of the asynchronous calls that have ended (all of them, ``wait``ing for
        those still running) as one user message."""
        done = [item for item in self.started if wait or (item[1].later and item[1].later.done())]
        if done:
            self.started = [item for item in self.started if item not in done]
            self.transcript.append({"role": "user", "content": finished_text(done)})

    def loop(self, client: Any, max_turns: int) -> Loop[ChatRun]:
        """The loop of ``run_chat`` and ``arun_chat``, for either client (``runtime/protocols/_steps.py``)."""
        for turn in range(1, max_turns + 1):
            response = yield client.chat.completions.create(**self.request())
            run = yield Blocking(self.answer, response, turn)
            if run is not None:
                return run
        raise BudgetExceeded(f"the model was still calling tools after {max_turns} turns")


def run_chat(
    client: Any,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    runtime: Runtime,
    *,
    tool_choice: str | dict[str, Any] | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    profiles: Iterable[ModelProfile] = (),
    session_id: str | None = None,
    context: dict[str, Any] | None = None,
    strict: bool = False,
    **create_args: Any,
) -> ChatRun:
    """Call the model, run its tool calls, repeat until it answers without tool calls.

    ``client`` is an ``openai.OpenAI`` (or compatible) client. The model's profile reshapes
    every request (see `runtime.protocols.profiles`). ``tool_choice`` applies to the first turn;
    a ``"required"`` or named choice becomes ``"auto"`` afterwards. Tools found by
    ``tool_search`` join ``tools`` for the following turns. Raises ``BudgetExceeded`` when the
    model still calls tools after ``max_turns`` requests.
    """
    conversation = _Conversation(
        runtime,
        model,
        messages,
        tool_choice=tool_choice,
        profiles=profiles,
        session_id=session_id,
        context=context,
        strict=strict,
        create_args=create_args,
    )
    return run_steps(conversation.loop(client, max_turns))


async def arun_chat(
    client: Any,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    runtime: Runtime,
    *,
    tool_choice: str | dict[str, Any] | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    profiles: Iterable[ModelProfile] = (),
    session_id: str | None = None,
    context: dict[str, Any] | None = None,
    strict: bool = False,
    **create_args: Any,
) -> ChatRun:
    """``run_chat`` with an ``openai.AsyncOpenAI`` client; the tools run in a worker thread."""
    conversation = _Conversation(
        runtime,
        model,
        messages,
        tool_choice=tool_choice,
        profiles=profiles,
        session_id=session_id,
        context=context,
        strict=strict,
        create_args=create_args,
    )
    return await arun_steps(conversation.loop(client, max_turns))


async def ahandle_tool_calls(
    message: Any,
    runtime: Runtime,
    *,
    session_id: str | None = None,
    context: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """``handle_tool_calls`` for asyncio: the same calls, run in a worker thread."""
    return await asyncio.to_thread(
        handle_tool_calls, message, runtime, session_id=session_id, context=context
    )
