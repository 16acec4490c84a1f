"""Registered tools as OpenAI Agents SDK ``FunctionTool``s whose invocations run in the sandbox.

    agent = Agent(name="support", tools=function_tools(runtime))
    await Runner.run(agent, "...", context={"session_id": "s1"})

The SDK's run context names the toolpen session (``session_of``: a string, or a ``session_id``
key or attribute); the SDK's tool call id is the toolpen call id, so a retried call replays its
stored result. A failure is answered to the model as ``kind: message``, never raised into the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from runtime._extras import require_extra

require_extra("agents", "runtime.adapters.openai_agents")

from agents import FunctionTool  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402

from runtime._results import ToolResult  # noqa: E402
from runtime.adapters import answer, call, definition  # noqa: E402
from runtime.protocols import parse_arguments  # noqa: E402
from sandbox.common.errors import InvalidArguments  # noqa: E402

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._runtime import Runtime

__all__ = [
    "SessionOf",
    "function_tool",
    "function_tools",
    "session_from_context",
]

SessionOf = Callable[[Any], "str | None"]


def session_from_context(context: Any) -> str | None:
    """The toolpen session of a run context: the context itself if a string, else its
    ``session_id`` (key or attribute); None (nothing stored) when it names none."""
    if isinstance(context, str):
        return context or None
    value = (
        context.get("session_id") if isinstance(context, Mapping) else getattr(context, "session_id", None)
    )
    return value if isinstance(value, str) and value else None


def function_tool(
    runtime: Runtime, tool: Tool, *, session_of: SessionOf = session_from_context
) -> FunctionTool:
    """One registered tool as a ``FunctionTool`` (strict schema when the tool's allows it)."""
    shown = definition(tool)

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        try:
            args = parse_arguments(arguments)
        except InvalidArguments as error:
            return answer(ToolResult(False, error=error))
        agent = getattr(ctx, "agent", None)
        outcome = await call(
            runtime,
            tool.name,
            args,
            session_id=session_of(ctx.context),
            call_id=ctx.tool_call_id or None,
            context={"agent_name": agent.name} if agent is not None else None,
        )
        return answer(outcome)

    return FunctionTool(
        name=shown.name,
        description=shown.description,
        params_json_schema=shown.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=shown.strict,
    )


def function_tools(runtime: Runtime, *, session_of: SessionOf = session_from_context) -> list[FunctionTool]:
    """Every tool the runtime has loaded (deferred ones left out), as ``FunctionTool``s."""
    return [function_tool(runtime, tool, session_of=session_of) for tool in runtime.tools()]
