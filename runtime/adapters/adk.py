"""Registered tools as Google ADK tools whose runs happen in the sandbox and whose state changes go
into ADK's ``ToolContext.state``, so that ADK's own session service persists them.

    agent = LlmAgent(name="support", model=..., tools=adk_tools(runtime))

ADK owns the session here: a call runs without a toolpen session, on a snapshot of ADK's state
(``app:``, ``user:`` and ``temp:`` keys as ADK names them), its events and ids. The events, as
they are when the call begins, are converted and sent only if its code reads ``context.events``
(once per call), so a call that does not pays nothing for the session's length. The delta of a
successful call is written into ``tool_context.state`` key by key (a deleted key becomes None:
ADK's state has no deletion), so the state is read and written through ADK's session API.

The calls of one model response that ADK runs at once take turns within their session, as
ADK's own (synchronous) ``FunctionTool``s do: each call's snapshot is taken after the calls
before it wrote theirs, so ``add_points(1)`` and ``add_points(2)`` leave 3, never a lost update.
Each call is ephemeral for toolpen, so nothing replays: a reused function call id runs anew.
The answer is the output (a dict as it is, anything else as
``{"result": ...}``), or ``{"error": "kind: message"}`` for the model to act on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar
from weakref import WeakValueDictionary

from runtime._extras import require_extra

require_extra("adk", "runtime.adapters.adk")

from google.adk.tools.base_tool import BaseTool  # noqa: E402
from google.adk.tools.tool_context import ToolContext  # noqa: E402
from google.genai import types  # noqa: E402

from runtime.adapters import definition  # noqa: E402
from runtime.protocols import error_text  # noqa: E402

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._runtime import Runtime


__all__ = [
    "SandboxedTool",
    "adk_tools",
]


class SandboxedTool(BaseTool):
    """One registered tool as an ADK tool."""

    _turns: ClassVar[WeakValueDictionary[tuple[int, str, str, str], asyncio.Lock]] = WeakValueDictionary()
    """One lock per ADK session (and event loop) while its calls run: they take turns."""

    def __init__(self, runtime: Runtime, tool: Tool) -> None:
        shown = definition(tool, strict=False)
        super().__init__(name=shown.name, description=shown.description)
        self.runtime = runtime
        self.parameters = shown.parameters

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self.parameters
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        async with self._turn(tool_context):
            result = await asyncio.to_thread(
                self.runtime.call,
                self.name,
                args,
                context=_context(tool_context),
                call_id=tool_context.function_call_id or None,
            )
            if not result.success:
                return {"error": error_text(result.error)}
            for key, value in result.state_delta.get("set", {}).items():
                tool_context.state[key] = value
            for key in result.state_delta.get("deleted", []):
                tool_context.state[key] = None
        return result.output if isinstance(result.output, dict) else {"result": result.output}

    def _turn(self, tool_context: ToolContext) -> asyncio.Lock:
        """The lock of the call's ADK session on this event loop."""
        session = tool_context.session
        key = (id(asyncio.get_running_loop()), session.app_name, session.user_id, session.id)
        lock = self._turns.get(key)
        if lock is None:
            lock = self._turns[key] = asyncio.Lock()
        return lock


def adk_tools(runtime: Runtime) -> list[SandboxedTool]:
    """Every tool the runtime has loaded (deferred ones left out), as ADK tools."""
    return [SandboxedTool(runtime, tool) for tool in runtime.tools()]


def _context(tool_context: ToolContext) -> dict[str, Any]:
    """What the tool sees, from ADK's side: state, events, ids, the user's message."""
    session = tool_context.session
    user_content = tool_context.user_content
    return {
        "state": tool_context.state.to_dict(),
        "events": partial(_events, tuple(session.events)),  # read if the code asks for them
        "session_id": session.id,
        "invocation_id": tool_context.invocation_id,
        "agent_name": tool_context.agent_name,
        "function_call_id": tool_context.function_call_id,
        "user_content": _dump(user_content) if user_content is not None else None,
    }


def _events(events: Sequence[Any]) -> list[dict[str, Any]]:
    return [_event(event) for event in events]


def _event(event: Any) -> dict[str, Any]:
    return {
        "id": event.id,
        "author": event.author,
        "invocation_id": event.invocation_id,
        "timestamp": event.timestamp,
        "content": _dump(event.content) if event.content is not None else None,
        "actions": {"state_delta": {"set": dict(event.actions.state_delta or {}), "deleted": []}},
    }


def _dump(content: types.Content) -> dict[str, Any]:
    return content.model_dump(mode="json", exclude_none=True)
