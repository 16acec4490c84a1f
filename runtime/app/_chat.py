"""``AppChat``: an exported app's agents talking to a model on any OpenAI-compatible Chat
Completions endpoint, one user turn at a time (``turn`` with ``openai.OpenAI``, ``aturn`` with
``openai.AsyncOpenAI``; one loop for both, ``runtime/protocols/_steps.py``).

A turn: the current agent's ``before_agent`` callbacks (a ``Content`` they answer is the reply,
the model is not called), then model calls until the model answers without tool calls. Each
model call is built as CES builds it (``runtime/app/_request.py``), reshaped by the model's
profile (``runtime/protocols/profiles.py``); ``before_model`` callbacks (the code guardrails'
first) get the real ``LlmRequest`` and may answer instead of the model (a guardrail's
``TRIGGER`` ends the turn with its ``respondImmediately`` text), ``hide_tool`` keeps a tool
from this call; ``after_model`` callbacks get the ``LlmResponse`` and may replace it. The
calls of one response run in the sandbox with their tool callbacks (fakes when the runtime has
them) by the app's ``toolExecutionMode``; a call of a tool this agent does not offer, or with
arguments that are not JSON, is answered with an error text the model can act on; an
``ASYNCHRONOUS`` tool answers pending and its result goes to the model once it ended (as
``run_chat`` sends it).
``transfer_to_agent`` makes the named agent current (its callbacks replace the previous
agent's) and it answers within the same turn; ``end_session`` ends the conversation. Then the
current agent's ``after_agent`` callbacks.

State lives in one session of the runtime's store across turns and agents. When the model
endpoint fails (unreachable, timed out, an HTTP error) the turn ends with a ``model_error`` and
the conversation is as it was before the turn: its history and current agent. What tools and
callbacks committed before the failure stays committed, as in every toolpen session.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runtime._calls import ToolCall, TurnCall
from runtime._results import ToolResult
from runtime.app._register import applied_guardrails, register_agent
from runtime.app._request import (
    END_SESSION,
    TRANSFER,
    AgentTools,
    agent_tools,
    chat_message,
    content_text,
    llm_request,
    llm_response,
    system_prompt,
)
from runtime.protocols import error_text, finished_text, output_text, parse_arguments, refused, run_calls
from runtime.protocols._steps import Blocking, Loop, arun_steps, run_steps
from runtime.protocols.chat import tool_definition
from runtime.protocols.profiles import ModelProfile, profile_for, shape_request
from sandbox.common.errors import BudgetExceeded, InvalidArguments, ModelFailed, NotFound, ToolpenError

if TYPE_CHECKING:
    from runtime._runtime import Runtime
    from runtime.app._loader import App

__all__ = ["DEFAULT_MAX_STEPS", "AppChat", "ChatEvent", "ChatTurn", "endpoint_failure"]

DEFAULT_MAX_STEPS = 10
"""Model calls one user turn may take (transfers included) before it fails with ``budget_exceeded``."""


@dataclass(frozen=True)
class ChatEvent:
    """One thing that happened in a turn, in order. ``kind`` and its ``data``:

    - ``request``: ``{"request"}``, the Chat Completions request as sent (``notes`` of the profile);
    - ``response``: ``{"message"}``, the model's assistant message;
    - ``callback``: ``{"callback", "output", "state_delta"}``; a ``before_model`` callback that
      answered instead of the model has its ``output`` (the ``LlmResponse``);
    - ``tool_call``: ``{"tool", "args", "success", "output" | "error", "state_delta"}`` (an
      ``ASYNCHRONOUS`` tool's output is ``{"status": "pending"}``; ``tool_result``, the same
      members, is its result once it ended, sent to the model as a user message);
    - ``transfer``: ``{"from", "to"}``; ``end_session``: ``{"args"}``;
    - ``guardrail``: ``{"reason", "reply"}``; ``reply``: ``{"text"}``; ``note``: ``{"text"}``.
    """

    kind: str
    agent: str
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "agent": self.agent, **self.data}


@dataclass
class ChatTurn:
    """A finished user turn: its events, the reply, the agent answering now, whether the
    conversation ended, and the error that stopped the turn (None when it went through)."""

    user: str
    events: list[ChatEvent] = field(default_factory=list)
    reply: str = ""
    agent: str = ""
    ended: bool = False
    error: ToolpenError | None = None

    @property
    def success(self) -> bool:
        return self.error is None

    def of(self, kind: str) -> list[ChatEvent]:
        """The events of one ``kind`` (``tool_call``, ``transfer``, ...)."""
        return [event for event in self.events if event.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "user": self.user,
            "reply": self.reply,
            "agent": self.agent,
            "ended": self.ended,
            "success": self.success,
            "error": self.error.to_dict() if self.error else None,
            "events": [event.to_dict() for event in self.events],
        }


class AppChat:
    """A conversation with an app's agents. ``rt`` is the app's runtime (``app_runtime``; the
    caller closes it), ``client`` an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` (or compatible)
    client, ``model`` the model's name on that endpoint (it picks the profile; ``profiles`` are
    tried first). ``agent`` starts the conversation (default: the root agent); ``create_args``
    go into every request. Not for two turns at once."""

    def __init__(
        self,
        rt: Runtime,
        app: App,
        client: Any,
        model: str,
        *,
        agent: str | None = None,
        session_id: str = "chat",
        profiles: Iterable[ModelProfile] = (),
        max_steps: int = DEFAULT_MAX_STEPS,
        **create_args: Any,
    ) -> None:
        self.rt = rt
        self.app = app
        self.client = client
        self.model = model
        self.profile = profile_for(model, profiles)
        self.session_id = session_id
        self.max_steps = max_steps
        self.create_args = create_args
        self.agent = app.agent(agent).display_name
        self.messages: list[dict[str, Any]] = []
        """The conversation so far, as Chat Completions messages (no system message)."""
        self.ended = False
        register_agent(rt, app, self.agent)
        rt.store.get_or_create_session(rt.app_name, rt.user_id, session_id, app.initial_state())

    @property
    def state(self) -> dict[str, Any]:
        """The session's state now."""
        return dict(self.rt.store.require_session(self.session_id, events=False).state)

    def turn(self, text: str) -> ChatTurn:
        """One user turn with a sync client."""
        return run_steps(self._turn(text))

    async def aturn(self, text: str) -> ChatTurn:
        """One user turn with an async client; tools and callbacks run in a worker thread."""
        return await arun_steps(self._turn(text))

    def _turn(self, text: str) -> Loop[ChatTurn]:
        turn = ChatTurn(text, agent=self.agent)
        if self.ended:
            turn.error = InvalidArguments("the conversation has ended (end_session): start a new one")
            return turn
        run = _Run(self, turn, [*self.messages, {"role": "user", "content": text}])
        try:
            yield from run.loop()
        except ToolpenError as error:
            turn.error = error
            turn.agent = self.agent
            if run.agent != self.agent:  # the previous agent's callbacks again
                yield Blocking(register_agent, self.rt, self.app, self.agent)
            return turn
        self.messages, self.agent, self.ended = run.messages, run.agent, turn.ended
        turn.agent = run.agent
        return turn


class _Run:
    """One turn being played: its messages and current agent, committed by ``AppChat`` at its end."""

    def __init__(self, chat: AppChat, turn: ChatTurn, messages: list[dict[str, Any]]) -> None:
        self.chat = chat
        self.rt = chat.rt
        self.turn = turn
        self.messages = messages
        self.agent = chat.agent
        self.context: dict[str, Any] = {}
        self.offered: set[str] | None = None
        """The tools the last request offered (None: none was sent since the last calls)."""
        self.targets: list[str] = []
        self.started: list[tuple[str, TurnCall]] = []
        """Asynchronous calls answered pending whose result the model has not been sent yet."""

    def event(self, kind: str, **data: Any) -> None:
        added = ChatEvent(kind, self.agent, data)
        if kind != "note" or added not in self.turn.events:
            self.turn.events.append(added)

    def answered(self, text: str) -> None:
        """A reply that did not come from the model (a callback's, a guardrail's) joins the history."""
        self.turn.reply = text
        self.messages.append({"role": "assistant", "content": text})
        self.event("reply", text=text)

    def loop(self) -> Loop[None]:
        self.context = {"user_content": {"role": "user", "parts": [{"text": self.turn.user}]}}
        if (yield from self.agent_callback("before_agent")):
            return
        for _ in range(self.chat.max_steps):
            yield Blocking(self.send_finished, wait=False)
            message = yield from self.model_step()
            if message is None:  # a guardrail answered
                return
            self.messages.append(message)
            if not message.get("tool_calls") and self.started:
                yield Blocking(self.send_finished, wait=True)  # the model answers again with the results
                continue
            if not message.get("tool_calls"):
                self.turn.reply = str(message.get("content") or "")
                self.event("reply", text=self.turn.reply)
                yield from self.agent_callback("after_agent")
                return
            target = yield Blocking(self.act, message)
            if self.turn.ended:
                return
            if target is not None:
                self.event("transfer", **{"from": self.agent, "to": target})
                yield Blocking(register_agent, self.rt, self.chat.app, target)
                self.agent = target
                if (yield from self.agent_callback("before_agent")):
                    return
        raise BudgetExceeded(f"the agents were still calling tools after {self.chat.max_steps} model calls")

    def agent_callback(self, kind: str) -> Loop[bool]:
        """Run ``before_agent`` / ``after_agent``; True when a ``Content`` it answered is the reply."""
        if not self.rt.callbacks().get(kind):
            return False
        result = yield Blocking(self.callbacks, kind)
        if result.output is None:
            return False
        if self.guardrail(result.output):
            return True
        self.answered(content_text(result.output))
        return True

    def callbacks(self, kind: str, **values: Any) -> ToolResult:
        """Run one kind of agent callback; raise when one failed (the turn stops)."""
        context = {**self.context, "agent_name": self.agent}
        result = self.rt.run_callbacks(kind, session_id=self.chat.session_id, context=context, **values)
        self.event(
            "callback",
            callback=kind,
            output=result.output,
            state_delta=result.state_delta,
            success=result.success,
        )
        if not result.success:
            raise result.error or ToolpenError(f"the {kind} callbacks failed")
        return result

    def guardrail(self, output: Any) -> bool:
        """True (the turn answered) when a code guardrail TRIGGERed: its respondImmediately text."""
        if not (isinstance(output, Mapping) and output.get("decision") == "TRIGGER"):
            return False
        reason = str(output.get("reason") or "")
        reply = self.respond_immediately() or reason
        self.event("guardrail", reason=reason, reply=reply)
        self.answered(reply)
        return True

    def respond_immediately(self) -> str:
        """The first ``respondImmediately`` response of the code guardrails that apply."""
        for guardrail in applied_guardrails(self.chat.app, self.agent):
            action = guardrail.resource.action
            responses = (action.respond_immediately or {}).get("responses") if action else None
            if guardrail.resource.code_callback is not None and responses:
                return str(responses[0].get("text") or "")
        return ""

    def model_step(self) -> Loop[dict[str, Any] | None]:
        """One model call with its model callbacks: the assistant message, or None when a
        guardrail answered."""
        request, tools = yield Blocking(self.build)
        if self.rt.callbacks().get("before_model"):
            result = yield Blocking(self.callbacks, "before_model", llm_request=request)
            if result.output is not None:
                if self.guardrail(result.output):
                    return None
                return (yield from self.after_model(chat_message(result.output, "before_model")))
        payload = self.payload(request, tools)
        self.event("request", request=payload)
        try:
            response = yield self.chat.client.chat.completions.create(**payload)
            message = _message(response)
        except ToolpenError:
            raise
        except Exception as error:  # the client's own errors: connection, timeout, HTTP status
            raise endpoint_failure(error) from None
        self.event("response", message=message)
        return (yield from self.after_model(message))

    def build(self) -> tuple[dict[str, Any], AgentTools]:
        """The ``LlmRequest`` of the current agent's next model call (the state read from the
        store), and the tools it offers."""
        app, agent = self.chat.app, self.chat.app.agent(self.agent)
        tools = agent_tools(self.rt, app, agent)
        for note in tools.notes:
            self.event("note", text=note)
        system = system_prompt(app, agent, self.chat.state)
        return llm_request(self.chat.model, system, self.messages, tools.definitions), tools

    def after_model(self, message: dict[str, Any]) -> Loop[dict[str, Any] | None]:
        if not self.rt.callbacks().get("after_model"):
            return message
        result = yield Blocking(self.callbacks, "after_model", llm_response=llm_response(message))
        if result.output is None:
            return message
        if self.guardrail(result.output):
            return None
        return chat_message(result.output, "after_model")

    def payload(self, request: dict[str, Any], tools: AgentTools) -> dict[str, Any]:
        """The Chat Completions request: the (possibly edited) system instruction, the messages,
        the tools less those a callback hid, reshaped by the model's profile."""
        config = request.get("config") or {}
        hidden = set(config.get("excluded_tools") or [])
        system = content_text(config.get("system_instruction"))
        offered = [tool for tool in tools.definitions if tool["function"]["name"] not in hidden]
        messages = [{"role": "system", "content": system}, *self.messages] if system else list(self.messages)
        shaped = shape_request(self.chat.profile, messages, offered, None)
        payload: dict[str, Any] = {"model": self.chat.model, "messages": shaped.messages}
        payload.update(_model_settings(self.chat.app, self.agent))
        payload.update(self.chat.create_args)
        if shaped.tools:
            payload["tools"] = shaped.tools
        if shaped.tool_choice is not None:
            payload["tool_choice"] = shaped.tool_choice
        for note in shaped.notes:
            self.event("note", text=note)
        self.offered = {tool["function"]["name"] for tool in offered}
        self.targets = tools.transfer_targets
        return payload

    def act(self, message: dict[str, Any]) -> str | None:
        """Run the tool calls of ``message``, append the tool messages; the transfer's target, if any."""
        calls = [dict(call) for call in message["tool_calls"]]
        offered = self.offered
        if offered is None:  # a callback answered before any request was built
            agent = self.chat.app.agent(self.agent)
            tools = agent_tools(self.rt, self.chat.app, agent)
            offered, self.targets = set(tools.names), tools.transfer_targets
        requests = [self.request(call, offered) for call in calls]
        context = {**self.context, "agent_name": self.agent}
        answers = run_calls(
            self.rt, requests, define=tool_definition, session_id=self.chat.session_id, context=context
        )
        target = None
        for call, answered in zip(calls, answers, strict=True):
            result = answered.result
            content = output_text(result.output) if result.success else error_text(result.error)
            self.messages.append({"role": "tool", "tool_call_id": call.get("id", ""), "content": content})
            self.event("tool_call", **_call_data(answered))
            if answered.later is not None:
                self.started.append((str(call.get("id", "")), answered))
            if result.success and answered.call.tool == TRANSFER:
                target = str(answered.call.args.get("agent_name"))
            if result.success and answered.call.tool == END_SESSION:
                self.turn.ended = True
                self.event("end_session", args=answered.call.args)
        self.offered = None
        return None if self.turn.ended else target

    def send_finished(self, *, wait: bool) -> None:
        """The results of the asynchronous calls that ended (all, ``wait``ing for those still
        running) as one user message naming each call, as ``run_chat`` sends them."""
        done = [item for item in self.started if wait or (item[1].later and item[1].later.done())]
        if not done:
            return
        self.started = [item for item in self.started if item not in done]
        self.messages.append({"role": "user", "content": finished_text(done)})
        for _, answered in done:
            assert answered.later is not None
            self.event("tool_result", **_call_data(TurnCall(answered.call, answered.later.result())))

    def request(self, call: Mapping[str, Any], offered: set[str]) -> ToolCall | TurnCall:
        """A model's call as the turn runs it: refused when it names no tool this agent offers,
        its arguments are not a JSON object, or a transfer names no agent it may hand over to."""
        function = call.get("function") or {}
        name = str(function.get("name") or "")
        try:
            args = parse_arguments(function.get("arguments"))
        except InvalidArguments as error:
            return refused(name, error)
        if name not in offered:
            shown = ", ".join(sorted(offered)) or "none"
            return refused(name, NotFound(f"no tool named {name!r} here; the tools are: {shown}"))
        if name == TRANSFER:
            target = args.get("agent_name")
            if target not in self.targets:
                shown = ", ".join(self.targets)
                wrong = InvalidArguments(f"agent_name must be one of: {shown}; not {target!r}")
                return refused(name, wrong)
            return TurnCall(ToolCall(name, args), ToolResult(True, output={}))
        return ToolCall(name, args)


def _call_data(answered: TurnCall) -> dict[str, Any]:
    result = answered.result
    data: dict[str, Any] = {"tool": answered.call.tool, "args": answered.call.args, "success": result.success}
    if result.success:
        data["output"] = result.output
    else:
        data["error"] = result.error.to_dict() if result.error else None
    data["state_delta"] = result.state_delta
    return data


def _model_settings(app: App, agent: str) -> dict[str, Any]:
    """``temperature`` from the agent's ``modelSettings``, else its parent agent's, up to the
    app's (CES's ``ModelSettings``: an agent inherits what it does not set)."""
    seen: set[str] = set()
    name: str | None = agent
    while name is not None and name not in seen:
        seen.add(name)
        settings = app.agent(name).resource.model_settings
        if settings is not None and settings.temperature is not None:
            return {"temperature": settings.temperature}
        name = next((other for other, a in app.agents.items() if name in a.resource.child_agents), None)
    settings = app.resource.model_settings
    if settings is not None and settings.temperature is not None:
        return {"temperature": settings.temperature}
    return {}


def _message(response: Any) -> dict[str, Any]:
    """The assistant message of a response (dict or SDK object)."""
    data = response if isinstance(response, Mapping) else response.model_dump(exclude_none=True)
    choices = data.get("choices") or []
    if not choices or not isinstance(choices[0].get("message"), Mapping):
        raise ModelFailed("the model's answer has no choices[0].message: not a Chat Completions response")
    message = dict(choices[0]["message"])
    message["role"] = "assistant"
    problem = _shape_problem(message)
    if problem is not None:  # the turn would fail on it in host code, with no structured error
        raise ModelFailed(f"the model's answer is not a Chat Completions message: {problem}")
    return {key: value for key, value in message.items() if key in ("role", "content", "tool_calls")}


def _shape_problem(message: Mapping[str, Any]) -> str | None:
    """What in an assistant message the turn cannot use, if anything: ``content`` a string or
    null, ``tool_calls`` a list of objects whose ``function`` is an object naming it with a string."""
    content, calls = message.get("content"), message.get("tool_calls")
    if content is not None and not isinstance(content, str):
        return f"its content is a {type(content).__name__}, not a string"
    if calls is None:
        return None
    if not isinstance(calls, list):
        return f"its tool_calls are a {type(calls).__name__}, not a list"
    for call in calls:
        function = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
            return "a tool call is not an object whose function is an object with a string name"
        if not isinstance(call.get("id", ""), str):
            return "a tool call's id is not a string"
    return None


def endpoint_failure(error: Exception) -> ModelFailed:
    """A model client's error (connection, timeout, HTTP status) as the turn's ``model_error``, in
    one line: its class, status and message (never the request's headers)."""
    status = getattr(error, "status_code", None)
    name = type(error).__name__
    message = str(getattr(error, "message", "") or error)
    return ModelFailed(
        f"the model endpoint failed ({name}{f', HTTP {status}' if status else ''}): {message}"[:500]
    )
