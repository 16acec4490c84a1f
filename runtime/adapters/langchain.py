"""Registered tools as LangChain tools whose calls run in the sandbox.

    tools = structured_tools(runtime)
    model = chat_model.bind_tools(tools)
    message = tools_by_name[call["name"]].invoke(call, config={"configurable": {"session_id": "s1"}})
    agent = create_react_agent(model, tools, checkpointer=saver)   # langgraph: the thread is the session
    agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "t1"}})

The session is the run config's ``configurable.session_id`` (LangChain's convention for message
histories), else langgraph's ``configurable.thread_id`` (one conversation thread, one toolpen
session); without either the call is ephemeral. Pass ``session_of`` to choose otherwise. A
failure is the tool's answer as ``kind: message`` (``ToolMessage(status="error")`` through the
tool-calling API), never an exception in the chain.

The arguments reach the tool as one dict, never as keyword arguments of LangChain's own
methods: a pasted tool's parameters named ``config``, ``self``, ``run_manager`` or
``callbacks`` (names LangChain's ``StructuredTool`` takes for itself, so that its own ``@tool``
cannot be called with them) are shown to the model and passed to the tool under their own names.
Each call is a new call (LangChain does not retry a tool call): nothing replays.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from runtime._extras import require_extra

require_extra("langchain", "runtime.adapters.langchain")

from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.tools import BaseTool, ToolException  # noqa: E402

from runtime.adapters import answer, definition  # noqa: E402
from runtime.protocols import run_call  # noqa: E402

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._runtime import Runtime


__all__ = [
    "SandboxedTool",
    "SessionOf",
    "session_from_config",
    "structured_tool",
    "structured_tools",
]

SessionOf = Callable[["RunnableConfig | None"], "str | None"]


def session_from_config(config: RunnableConfig | None) -> str | None:
    """``config["configurable"]["session_id"]``, else its ``thread_id`` (langgraph's), else None."""
    configurable = (config or {}).get("configurable") or {}
    for key in ("session_id", "thread_id"):
        value = configurable.get(key)
        if isinstance(value, str) and value:
            return value
    return None


class SandboxedTool(BaseTool):
    """One registered tool as a LangChain tool (its JSON Schema as the args schema)."""

    runtime: Any
    """The ``Runtime`` that runs the calls."""
    session_of: Any = session_from_config
    """The toolpen session of a run config (``SessionOf``)."""
    handle_tool_error: bool = True

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments as one positional dict, so no name meets a keyword of LangChain's."""
        parsed = self._parse_input(tool_input, tool_call_id)
        return (dict(parsed) if isinstance(parsed, dict) else {},), {}

    def _run(self, arguments: dict[str, Any], *, config: RunnableConfig) -> str:
        outcome = run_call(
            self.runtime,
            self.name,
            arguments,
            define=lambda tool: tool.schema("responses"),
            session_id=self.session_of(config),
        )
        if not outcome.success:
            raise ToolException(answer(outcome))
        return answer(outcome)

    async def _arun(self, arguments: dict[str, Any], *, config: RunnableConfig) -> str:
        """``_run`` in a thread (the sandbox call blocks), so the event loop runs on."""
        return await asyncio.to_thread(self._run, arguments, config=config)


def structured_tool(
    runtime: Runtime, tool: Tool, *, session_of: SessionOf = session_from_config
) -> SandboxedTool:
    """One registered tool as a LangChain tool (``SandboxedTool``)."""
    shown = definition(tool, strict=False)
    return SandboxedTool(
        name=shown.name,
        description=shown.description,
        args_schema=shown.parameters,
        runtime=runtime,
        session_of=session_of,
    )


def structured_tools(runtime: Runtime, *, session_of: SessionOf = session_from_config) -> list[SandboxedTool]:
    """Every tool the runtime has loaded (deferred ones left out), as LangChain tools."""
    return [structured_tool(runtime, tool, session_of=session_of) for tool in runtime.tools()]
