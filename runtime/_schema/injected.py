"""Parameters a framework fills itself, left out of the schema: which annotation means which kind.

As each framework's schema builder does: ADK's ``FunctionTool`` drops a parameter annotated
``ToolContext`` or named ``tool_context``; MCP's ``FastMCP``/``MCPServer`` one annotated ``Context``;
the Agents SDK's ``function_tool`` a first parameter annotated ``RunContextWrapper[T]`` (or its
``ToolContext[T]``); LangChain's ``StructuredTool`` one annotated ``RunnableConfig``. The worker
fills each kind (``sandbox.bridges.framework_context``).
"""

from __future__ import annotations

import ast

from runtime._schema.scope import Scope

_KINDS = {
    "google.adk.tools.ToolContext": "tool_context",
    "google.adk.tools.tool_context.ToolContext": "tool_context",
    "google.adk.agents.ToolContext": "tool_context",
    "mcp.server.fastmcp.Context": "mcp_context",
    "mcp.server.fastmcp.server.Context": "mcp_context",
    "mcp.server.mcpserver.Context": "mcp_context",
    "mcp.server.mcpserver.context.Context": "mcp_context",
    "agents.RunContextWrapper": "run_context",
    "agents.run_context.RunContextWrapper": "run_context",
    "agents.ToolContext": "run_context",
    "agents.tool_context.ToolContext": "run_context",
    "langchain_core.runnables.RunnableConfig": "runnable_config",
    "langchain_core.runnables.config.RunnableConfig": "runnable_config",
}
ADK_CONTEXT_NAME = "tool_context"
"""ADK injects a parameter of this name whatever its annotation (``FunctionTool._ignore_params``)."""


def injected_kind(argument: ast.arg, scope: Scope) -> str | None:
    """The kind of context the framework hands ``argument``, or None for a model-facing parameter."""
    annotation = argument.annotation
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value.strip(), mode="eval").body
        except (SyntaxError, MemoryError, RecursionError):  # too deep: the schema reader reports it
            annotation = None
    if isinstance(annotation, ast.Subscript):  # Context[ServerSession, None], RunContextWrapper[T]
        annotation = annotation.value
    kind = _KINDS.get(scope.qualname(annotation) or "") if annotation is not None else None
    if kind is None and argument.arg == ADK_CONTEXT_NAME:
        return "tool_context"
    return kind
