"""Registered tools as LangChain ``StructuredTool``s whose calls run in the sandbox.

    tools = structured_tools(runtime)
    model = chat_model.bind_tools(tools)
    message = tools_by_name[call["name"]].invoke(call, config={"configurable": {"session_id": "s1"}})

The session is the run config's ``configurable.session_id`` (LangChain's convention for message
histories); without one the call is ephemeral. A failure is the tool's answer as ``kind: message``
(``ToolMessage(status="error")`` through the tool-calling API), never an exception in the chain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime._extras import require_extra

require_extra("langchain", "runtime.adapters.langchain")

from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.tools import StructuredTool, ToolException  # noqa: E402

from runtime.adapters import answer, call, definition  # noqa: E402
from runtime.protocols import run_call  # noqa: E402

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._results import ToolResult
    from runtime._runtime import Runtime


__all__ = [
    "session_from_config",
    "structured_tool",
    "structured_tools",
]


def session_from_config(config: RunnableConfig | None) -> str | None:
    """``config["configurable"]["session_id"]``, or None."""
    value = ((config or {}).get("configurable") or {}).get("session_id")
    return value if isinstance(value, str) and value else None


def structured_tool(runtime: Runtime, tool: Tool) -> StructuredTool:
    """One registered tool as a ``StructuredTool`` (its JSON Schema as the args schema)."""
    shown = definition(tool, strict=False)

    def checked(outcome: ToolResult) -> str:
        if not outcome.success:
            raise ToolException(answer(outcome))
        return answer(outcome)

    def run(config: RunnableConfig, **args: Any) -> str:
        session_id = session_from_config(config)
        outcome = run_call(
            runtime, tool.name, args, define=lambda t: t.schema("responses"), session_id=session_id
        )
        return checked(outcome)

    async def arun(config: RunnableConfig, **args: Any) -> str:
        return checked(await call(runtime, tool.name, args, session_id=session_from_config(config)))

    return StructuredTool(
        name=shown.name,
        description=shown.description,
        args_schema=shown.parameters,
        func=run,
        coroutine=arun,
        handle_tool_error=True,
    )


def structured_tools(runtime: Runtime) -> list[StructuredTool]:
    """Every tool the runtime has loaded (deferred ones left out), as ``StructuredTool``s."""
    return [structured_tool(runtime, tool) for tool in runtime.tools()]
