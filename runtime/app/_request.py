"""What one model call of an app's agent is made of, as CES builds it from the export.

- The system prompt: the app's ``globalInstruction``, then the agent's ``instruction``, with
  ``{variable}`` replaced by the session's value of that variable (CES's variable references; a
  name that is no variable stays as written), ``{@TOOL: name}`` and ``{@AGENT: Name}`` by the
  name they reference (CES's instruction syntax; how CES renders the chips to the model is not
  documented, the name is our reading).
- The tools: the agent's ``tools`` (its Python tools by their function's name, ``end_session``
  and ``customize_response`` when listed) and ``toolsets`` operations (``<toolset>_<operation>``),
  and ``transfer_to_agent`` whenever the agent has an agent to hand over to: its child agents and
  its parent (inferred: CES offers the transfer without the agent listing it, as the real
  exports' callbacks that ``hide_tool("transfer_to_agent")`` show; transfers to the parent as ADK
  allows).
- The ``LlmRequest`` a ``before_model`` callback gets: ``contents`` (the conversation as CES
  content: user text, the model's text and function calls, the function responses) and
  ``config`` (``system_instruction`` and the tools' ``function_declarations``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runtime._openapi_toolset import snake_case
from runtime.protocols.chat import tool_definition
from sandbox.common.errors import NotFound, ToolFailed

if TYPE_CHECKING:
    from runtime._runtime import Runtime
    from runtime.app._loader import App, AppAgent

TRANSFER = "transfer_to_agent"
END_SESSION = "end_session"
CUSTOMIZE_RESPONSE = "customize_response"

_REFERENCE = re.compile(r"\{@(?:TOOL|AGENT):\s*([^}]+?)\s*\}")
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def render_instruction(text: str, state: Mapping[str, Any]) -> str:
    """CES's references in an instruction replaced: tools and agents by name, variables by value."""
    text = _REFERENCE.sub(lambda match: match.group(1), text)

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in state:
            return match.group(0)
        found = state[name]
        return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)

    return _VARIABLE.sub(value, text)


def system_prompt(app: App, agent: AppAgent, state: Mapping[str, Any]) -> str:
    """The global instruction and the agent's, rendered, one paragraph each."""
    parts = [app.global_instruction, agent.instruction]
    return "\n\n".join(render_instruction(part, state).strip() for part in parts if part.strip())


def transfer_targets(app: App, agent: AppAgent) -> list[str]:
    """The agents ``agent`` may hand over to: its child agents, then its parent, each once."""
    parents = [
        name for name, other in app.agents.items() if agent.display_name in other.resource.child_agents
    ]
    known = [name for name in [*agent.resource.child_agents, *parents] if name in app.agents]
    return [name for name in dict.fromkeys(known) if name != agent.display_name]


@dataclass(frozen=True)
class AgentTools:
    """The tools one agent offers the model: the registered tools' names and every definition."""

    registered: list[str]
    definitions: list[dict[str, Any]]
    transfer_targets: list[str]
    notes: list[str]

    @property
    def names(self) -> list[str]:
        return [definition["function"]["name"] for definition in self.definitions]


def agent_tools(rt: Runtime, app: App, agent: AppAgent) -> AgentTools:
    """The function definitions of what ``agent`` may call (its tools, toolsets' operations, the
    system tools), and a note for each listed tool toolpen cannot offer."""
    registered: list[str] = []
    notes: list[str] = []
    system: list[dict[str, Any]] = []
    for name in agent.resource.tools:
        if name in (END_SESSION, CUSTOMIZE_RESPONSE):
            system.append(_function(name, *_SYSTEM[name]))
        elif name != TRANSFER:
            found = _registered(rt, app, name)
            if found is None:
                notes.append(f"{agent.display_name}: tool {name!r} is not a Python tool; not offered")
            else:
                registered.append(found)
    for use in agent.resource.toolsets:
        toolset = app.toolsets.get(use.toolset)
        if toolset is None:
            notes.append(f"{agent.display_name}: toolset {use.toolset!r} does not run here; not offered")
            continue
        prefix = f"{toolset.display_name}_"
        operations = [f"{prefix}{snake_case(tool_id)}" for tool_id in use.tool_ids]
        registered += operations or [t.name for t in rt.tools() if t.name.startswith(prefix)]
    definitions = [tool_definition(rt.get_tool(name)) for name in dict.fromkeys(registered)]
    targets = transfer_targets(app, agent)
    if targets:
        system.append(_transfer_function(app, targets))
    return AgentTools(list(dict.fromkeys(registered)), definitions + system, targets, notes)


def _registered(rt: Runtime, app: App, name: str) -> str | None:
    """The registered name of the agent's tool ``name`` (a tool's display name, or its function's)."""
    tool = app.tools.get(name)
    for candidate in (name, tool.entry if tool else None):
        if candidate:
            try:
                return rt.get_tool(candidate).name
            except NotFound:
                continue
    return None


_SYSTEM: dict[str, tuple[str, dict[str, Any]]] = {
    END_SESSION: (
        "End the conversation: the customer is done, or it must go to a human (session_escalated).",
        {
            "reason": {"type": "string", "description": "Why the conversation ends."},
            "session_escalated": {"type": "boolean", "description": "True to hand over to a human."},
        },
    ),
    CUSTOMIZE_RESPONSE: (
        "Send the customer this exact response.",
        {"content": {"type": "string", "description": "The response to send."}},
    ),
}


def _function(
    name: str, description: str, properties: dict[str, Any], required: Sequence[str] = ()
) -> dict[str, Any]:
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = list(required)
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def _transfer_function(app: App, targets: list[str]) -> dict[str, Any]:
    described = "; ".join(
        f"{name}: {app.agents[name].resource.description}" if app.agents[name].resource.description else name
        for name in targets
    )
    return _function(
        TRANSFER,
        f"Hand the conversation over to another agent, who answers the customer next. Agents: {described}",
        {"agent_name": {"type": "string", "enum": targets, "description": "The agent to hand over to."}},
        ["agent_name"],
    )


def llm_request(
    model: str, system: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """The ``LlmRequest`` (as a dict) of a Chat Completions conversation: what ``before_model`` gets."""
    declarations = [
        {
            key: tool["function"][key]
            for key in ("name", "description", "parameters")
            if key in tool["function"]
        }
        for tool in tools
    ]
    config: dict[str, Any] = {"system_instruction": {"role": "user", "parts": [{"text": system}]}}
    if declarations:
        config["tools"] = [{"function_declarations": declarations}]
    return {"model": model, "contents": contents(messages), "config": config}


def contents(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages as CES contents: a tool message answers the preceding assistant's calls in order."""
    result: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role == "user":
            result.append({"role": "user", "parts": [{"text": str(message.get("content") or "")}]})
        elif role == "assistant":
            calls = list(message.get("tool_calls") or [])
            parts: list[dict[str, Any]] = [{"text": message["content"]}] if message.get("content") else []
            parts += [{"function_call": _function_call(call)} for call in calls]
            pending = [part["function_call"] for part in parts if "function_call" in part]
            result.append({"role": "model", "parts": parts})
        elif role == "tool":
            call = pending.pop(0) if pending else {"id": message.get("tool_call_id"), "name": ""}
            response = {"id": call["id"], "name": call["name"], "response": _response(message.get("content"))}
            part = {"function_response": response}
            if result and result[-1]["role"] == "user" and "function_response" in result[-1]["parts"][-1]:
                result[-1]["parts"].append(part)
            else:
                result.append({"role": "user", "parts": [part]})
    return result


def _function_call(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    try:
        args = json.loads(function.get("arguments") or "{}")
    except (json.JSONDecodeError, TypeError):
        args = {}
    return {
        "id": call.get("id"),
        "name": function.get("name", ""),
        "args": args if isinstance(args, dict) else {},
    }


def _response(content: Any) -> dict[str, Any]:
    """A tool message's content as a function response: CES wraps a result as ``{"result": ...}``."""
    try:
        value = json.loads(content) if isinstance(content, str) else content
    except json.JSONDecodeError:
        value = content
    return {"result": value}


def chat_message(response: Any, callback: str) -> dict[str, Any]:
    """An ``LlmResponse`` (the answer of a ``callback``) as the assistant message it stands for;
    ``ToolFailed`` when the answer is not shaped as one (host code would raise on it)."""
    problem = _response_problem(response)
    if problem is not None:
        raise ToolFailed(f"the {callback} callback's answer is not an LlmResponse: {problem}")
    content = response.get("content") or {}
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in content.get("parts") or []:
        if not isinstance(part, Mapping):
            continue
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        call = part.get("function_call")
        if isinstance(call, Mapping):
            arguments = json.dumps(call.get("args") or {}, ensure_ascii=False)
            function = {"name": str(call.get("name") or ""), "arguments": arguments}
            calls.append(
                {"id": str(call.get("id") or f"call_{len(calls)}"), "type": "function", "function": function}
            )
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def _response_problem(response: Any) -> str | None:
    """What in a callback's ``LlmResponse`` ``chat_message`` cannot use: it must be an object whose
    ``content``, if any, is an object whose ``parts``, if any, are a list."""
    if not isinstance(response, Mapping):
        return f"it is a {type(response).__name__}, not an object"
    content = response.get("content")
    if content is None:
        return None
    if not isinstance(content, Mapping):
        return f"its content is a {type(content).__name__}, not an object"
    parts = content.get("parts")
    if parts is not None and not isinstance(parts, list):
        return f"its content's parts are a {type(parts).__name__}, not a list"
    return None


def llm_response(message: Mapping[str, Any]) -> dict[str, Any]:
    """An assistant message as the ``LlmResponse`` (a dict) ``after_model`` gets."""
    parts: list[dict[str, Any]] = [{"text": message["content"]}] if message.get("content") else []
    parts += [{"function_call": _function_call(call)} for call in message.get("tool_calls") or []]
    return {"content": {"role": "model", "parts": parts}}


def content_text(content: Any) -> str:
    """The text of a callback's ``Content`` (or ``LlmResponse``) dict."""
    if not isinstance(content, Mapping):
        return ""
    inner = content.get("content") if "content" in content and "parts" not in content else content
    parts = inner.get("parts") if isinstance(inner, Mapping) else None
    return "".join(str(part.get("text") or "") for part in parts or [] if isinstance(part, Mapping))
