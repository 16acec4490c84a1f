"""The view of Google ADK (``google.adk``) a tool file imports: ``ToolContext`` as an annotation,
``FunctionTool`` as an inert wrapper, and inert agents.

The tool's ``tool_context`` parameter is filled with the call's CES ``context``
(``sandbox.bridges.framework_call``); ``ToolContext`` here only names that kind, and building one
is refused (ADK builds it from an invocation, which a tool call has not).
"""

from __future__ import annotations

from typing import Any

from sandbox.language.framework_views.inert import InertAgent, InertToolWrapper, StandIn, by_name


class ToolContext(StandIn):
    """ADK's ``ToolContext``: a tool's ``tool_context`` parameter is handed the call's ``context``."""

    __slots__ = ()

    def __init__(self, *args: Any, **options: Any) -> None:
        raise TypeError("ToolContext is handed to a tool's tool_context parameter; it is not built by tools")


class CallbackContext(ToolContext):
    """ADK's ``CallbackContext``: an annotation only, as ``ToolContext``."""

    __slots__ = ()


class FunctionTool(InertToolWrapper):
    """ADK's ``FunctionTool(func)``: keeps ``func``, ``name``, ``description``."""

    __slots__ = ()


class LongRunningFunctionTool(FunctionTool):
    """ADK's ``LongRunningFunctionTool(func)``: as ``FunctionTool``."""

    __slots__ = ()


def _agent(name: str) -> type:
    return type(name, (InertAgent,), {"__slots__": (), "__doc__": f"Inert: ADK's {name}."})


_AGENTS = {
    name: _agent(name) for name in ("Agent", "LlmAgent", "SequentialAgent", "ParallelAgent", "LoopAgent")
}
_TOOLS = by_name(ToolContext, FunctionTool, LongRunningFunctionTool)
MEMBERS: dict[str, dict[str, Any]] = {
    "google.adk.tools": _TOOLS,
    "google.adk.tools.tool_context": by_name(ToolContext),
    "google.adk.tools.function_tool": by_name(FunctionTool),
    "google.adk.tools.long_running_tool": by_name(LongRunningFunctionTool),
    "google.adk.agents": {**_AGENTS, **by_name(CallbackContext)},
    "google.adk.agents.callback_context": by_name(CallbackContext),
}
