"""Registered tools as OpenAI Agents SDK ``FunctionTool``s whose invocations run in the sandbox.

    agent = Agent(name="support", tools=function_tools(runtime))
    await Runner.run(agent, "...", session=SQLiteSession("s1"))    # toolpen session "s1"
    await Runner.run(agent, "...", context={"session_id": "s1"})   # the same, named by the context

The toolpen session is the one the run context names (``session_of``: a string, or a
``session_id`` key or attribute), else the ``session_id`` of the SDK ``Session`` given to the
runner (the SDK does not show it to tools: ``function_tools`` wraps the SDK's default runner,
through ``set_default_agent_runner``, to note it), else none (an ephemeral call). The SDK's tool
call id is the toolpen call id: a retried call (same id, tool and arguments) replays its stored
result; a call that reuses an id with another tool or other arguments runs as a new call. The
calls of one model response run at once, as the SDK runs its own tools; within a session they
take turns, each reading the state the ones before it left. A failure is answered to the model as
``kind: message``, never raised into the run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from runtime._extras import require_extra

require_extra("agents", "runtime.adapters.openai_agents")

from agents import FunctionTool  # noqa: E402
from agents.run import AgentRunner, get_default_agent_runner, set_default_agent_runner  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402

from runtime._results import ToolResult  # noqa: E402
from runtime.adapters import answer, call, definition  # noqa: E402
from runtime.protocols import parse_arguments  # noqa: E402
from sandbox.common.errors import InvalidArguments  # noqa: E402

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._runtime import Runtime

__all__ = [
    "SessionNotingRunner",
    "SessionOf",
    "function_tool",
    "function_tools",
    "note_run_sessions",
    "session_from_context",
]

SessionOf = Callable[[Any], "str | None"]

_RUN_SESSION: ContextVar[str | None] = ContextVar("toolpen_agents_run_session", default=None)
"""The ``session_id`` of the SDK ``Session`` given to the run being made (its tools' tasks copy it)."""


class SessionNotingRunner(AgentRunner):
    """The SDK's runner, noting the run's ``Session`` for the tools (which the SDK does not show)."""

    def __init__(self, inner: AgentRunner) -> None:
        self.inner = inner

    async def run(self, starting_agent: Any, input: Any, **kwargs: Any) -> Any:  # noqa: A002 (the SDK's name)
        with _run_session(kwargs):
            return await self.inner.run(starting_agent, input, **kwargs)

    def run_sync(self, starting_agent: Any, input: Any, **kwargs: Any) -> Any:  # noqa: A002
        with _run_session(kwargs):
            return self.inner.run_sync(starting_agent, input, **kwargs)

    def run_streamed(self, starting_agent: Any, input: Any, **kwargs: Any) -> Any:  # noqa: A002
        with _run_session(kwargs):  # the streamed run's task starts here, with a copy of the variable
            return self.inner.run_streamed(starting_agent, input, **kwargs)


@contextmanager
def _run_session(run_options: Mapping[str, Any]) -> Iterator[None]:
    """The run's ``session=`` noted for the tools while the block runs."""
    token = _RUN_SESSION.set(_session_id(run_options.get("session")))
    try:
        yield
    finally:
        _RUN_SESSION.reset(token)


def note_run_sessions() -> None:
    """Make the SDK's default runner note each run's ``Session`` (once; a runner set later by
    ``set_default_agent_runner`` replaces it, and then only the run context names the session)."""
    runner = get_default_agent_runner()
    if not isinstance(runner, SessionNotingRunner):
        set_default_agent_runner(SessionNotingRunner(runner))


def _session_id(session: Any) -> str | None:
    value = getattr(session, "session_id", None)
    return value if isinstance(value, str) and value else None


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
    note_run_sessions()
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
            session_id=session_of(ctx.context) or _RUN_SESSION.get(),
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
