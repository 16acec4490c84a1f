"""A framework's tool decorator on the tool function: the function is the tool, and the decorator's
arguments override its name, description or parameters, as each framework reads them.

- the Agents SDK's ``@function_tool(name_override=..., description_override=..., strict_mode=...)``
  (``strict_mode=False``: the adapters offer the schema as derived, not in strict mode);
- MCP's ``@mcp.tool(name=..., description=...)``, ``mcp`` a top-level ``FastMCP(...)`` or
  ``MCPServer(...)``;
- LangChain's ``@tool``, ``@tool("name")``, ``@tool(description=..., args_schema=Model)``: the
  parameters are then the model's fields.

Only literal strings are read (what the static reader cannot evaluate is the function's own).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from runtime._schema.scope import Scope

_AGENTS = frozenset({"agents.function_tool", "agents.tool.function_tool"})
_LANGCHAIN = frozenset(
    {"langchain_core.tools.tool", "langchain.tools.tool", "langchain_core.tools.convert.tool"}
)
_MCP_SERVERS = frozenset(
    {
        "mcp.server.fastmcp.FastMCP",
        "mcp.server.fastmcp.server.FastMCP",
        "mcp.server.mcpserver.MCPServer",
        "fastmcp.FastMCP",
    }
)
_NAME_KEYWORDS = {"agents": "name_override", "mcp": "name", "langchain": ""}
_DESCRIPTION_KEYWORDS = {"agents": "description_override", "mcp": "description", "langchain": "description"}


@dataclass(frozen=True)
class Overrides:
    """What a tool decorator sets: the tool's ``name``, ``description``, ``args_schema`` (LangChain),
    ``strict`` (the Agents SDK's ``strict_mode``)."""

    framework: str | None = None
    name: str | None = None
    description: str | None = None
    args_schema: ast.expr | None = None
    strict: bool | None = None


def decorator_overrides(
    function: ast.FunctionDef | ast.AsyncFunctionDef, module: ast.Module, scope: Scope
) -> Overrides:
    """The overrides of the first framework tool decorator on ``function`` (none: ``Overrides()``)."""
    servers = _mcp_servers(module, scope)
    for decorator in function.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        target = call.func if call is not None else decorator
        framework = _framework(target, scope, servers)
        if framework is None:
            continue
        if call is None:
            return Overrides(framework)
        keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
        name = _literal(keywords.get(_NAME_KEYWORDS[framework]))
        if framework == "langchain" and call.args:
            name = _literal(call.args[0])
        description = _literal(keywords.get(_DESCRIPTION_KEYWORDS[framework]))
        schema = keywords.get("args_schema") if framework == "langchain" else None
        strict = keywords.get("strict_mode") if framework == "agents" else None
        strict_mode = (
            strict.value if isinstance(strict, ast.Constant) and isinstance(strict.value, bool) else None
        )
        return Overrides(framework, name, description, schema, strict_mode)
    return Overrides()


def _framework(target: ast.expr, scope: Scope, servers: frozenset[str]) -> str | None:
    qualname = scope.qualname(target)
    if qualname in _AGENTS:
        return "agents"
    if qualname in _LANGCHAIN:
        return "langchain"
    if isinstance(target, ast.Attribute) and target.attr == "tool" and isinstance(target.value, ast.Name):
        return "mcp" if target.value.id in servers else None
    return None


def _mcp_servers(module: ast.Module, scope: Scope) -> frozenset[str]:
    """The top-level names bound to an MCP server: ``mcp = FastMCP("name")``."""
    names: set[str] = set()
    for node in module.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        if scope.qualname(node.value.func) in _MCP_SERVERS:
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return frozenset(names)


def _literal(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None
