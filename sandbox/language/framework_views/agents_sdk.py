"""The view of the OpenAI Agents SDK (``agents``) a tool file imports: ``function_tool``, the
run-context wrapper, and inert ``Agent``/``Runner``.

``@function_tool`` and ``@function_tool(name_override=..., description_override=..., strict_mode=...)``
hand back the function itself (the SDK's ``FunctionTool`` is what its runner calls; toolpen calls the
function, and the schema reader reads the decorator's overrides: ``runtime/_schema/decorators.py``).
A keyword the SDK's ``function_tool`` does not take is a ``TypeError``, as there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sandbox.language.framework_views.inert import InertAgent, StandIn, by_name, raise_not_in_toolpen

TContext = TypeVar("TContext")

FUNCTION_TOOL_OPTIONS = frozenset(
    {
        "name_override",
        "description_override",
        "docstring_style",
        "use_docstring_info",
        "failure_error_function",
        "strict_mode",
        "is_enabled",
        "needs_approval",
        "tool_input_guardrails",
        "tool_output_guardrails",
        "timeout",
        "timeout_behavior",
        "timeout_error_function",
        "defer_loading",
        "custom_data_extractor",
        "allowed_callers",
        "output_type",
        "output_json_schema",
    }
)
"""The keywords of the SDK's ``function_tool`` (openai-agents 0.24)."""


class RunContextWrapper(StandIn, Generic[TContext]):
    """The Agents SDK's ``RunContextWrapper[T]``: the run's ``context`` object (the session state,
    validated as ``T``: ``sandbox.bridges.framework_call``)."""

    __slots__ = ("context",)
    readable = frozenset({"context"})

    def __init__(self, context: Any) -> None:
        self.context = context


class ToolContext(RunContextWrapper[TContext]):
    """The Agents SDK's ``ToolContext[T]``: a ``RunContextWrapper`` handed to a tool."""

    __slots__ = ()


class Agent(InertAgent):
    """Inert: the SDK's agent, which lists the tools; toolpen runs the tool function."""

    __slots__ = ()


class Runner(StandIn):
    """Inert: running an agent is the SDK's, not a tool call's."""

    __slots__ = ()
    readable = frozenset({"run", "run_sync", "run_streamed"})

    @classmethod
    def run(cls, *args: Any, **options: Any) -> Any:
        """Refused: a tool does not run agents."""
        raise_not_in_toolpen("Runner.run", "runs an agent")

    run_sync = run
    run_streamed = run


def function_tool(func: Any = None, **options: Any) -> Any:
    """``@function_tool`` / ``@function_tool(...)``: the function itself (the overrides are the schema's)."""
    unknown = sorted(set(options) - FUNCTION_TOOL_OPTIONS)
    if unknown:
        raise TypeError(f"function_tool() got an unexpected keyword argument {unknown[0]!r}")
    if func is not None:
        if not callable(func):
            raise TypeError(f"function_tool() needs a function, not {type(func).__name__}")
        return func
    decorator: Callable[[Any], Any] = function_tool
    return decorator


MEMBERS: dict[str, dict[str, Any]] = {
    "agents": by_name(function_tool, RunContextWrapper, ToolContext, Agent, Runner),
    "agents.tool": by_name(function_tool),
    "agents.run_context": by_name(RunContextWrapper),
    "agents.tool_context": by_name(ToolContext),
}
