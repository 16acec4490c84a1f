"""The view of MCP's server module a tool file imports: ``FastMCP`` (mcp 1.x's name) and
``MCPServer`` (mcp 2.x's) as inert servers whose ``@tool()`` hands back the function, the tool
``Context``, and the server's exceptions.

As MCP's own decorator does, ``@mcp.tool()`` and ``@mcp.tool(name=..., description=...)`` return
the function unchanged, and ``@mcp.tool`` without parentheses is a ``TypeError``; the schema
reader reads ``name``/``description`` (``runtime/_schema/decorators.py``). ``resource``,
``prompt`` and ``completion`` register nothing and return the function; ``run`` is refused.
The tool's ``Context`` parameter is handed a ``Context`` whose logging and progress calls, which
a server sends to its client, go nowhere, with no request (``request_context`` is None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sandbox.language.framework_views.inert import StandIn, Subscriptable, by_name, raise_not_in_toolpen

TOOL_OPTIONS = frozenset(
    {"name", "title", "description", "annotations", "icons", "meta", "structured_output"}
)
"""The keywords of MCP's ``tool()`` decorator (mcp 1.x and 2.x)."""


def _returning_the_function(fn: Any) -> Any:
    if not callable(fn):
        raise TypeError(f"a decorator of functions, not of {type(fn).__name__}")
    return fn


class FastMCP(StandIn):
    """MCP's server, inert: it keeps its ``name``; its decorators hand back the functions."""

    __slots__ = ("name",)
    readable = frozenset({"name", "tool", "resource", "prompt", "completion", "add_tool", "run"})

    def __init__(self, name: str | None = None, *args: Any, **settings: Any) -> None:
        self.name = name

    def tool(self, name: Any = None, **options: Any) -> Callable[[Any], Any]:
        """``@mcp.tool()``: the function itself."""
        if callable(name):
            raise TypeError(
                "The @tool decorator was used incorrectly. Did you forget to call it? Use @tool() instead of @tool"
            )
        unknown = sorted(set(options) - TOOL_OPTIONS)
        if unknown:
            raise TypeError(f"tool() got an unexpected keyword argument {unknown[0]!r}")
        return _returning_the_function

    def resource(self, *args: Any, **options: Any) -> Callable[[Any], Any]:
        """``@mcp.resource(uri)``: the function itself (a resource is no tool)."""
        return _returning_the_function

    def prompt(self, *args: Any, **options: Any) -> Callable[[Any], Any]:
        """``@mcp.prompt()``: the function itself (a prompt is no tool)."""
        return _returning_the_function

    def completion(self, *args: Any, **options: Any) -> Callable[[Any], Any]:
        """``@mcp.completion()``: the function itself."""
        return _returning_the_function

    def add_tool(self, fn: Any, *args: Any, **options: Any) -> None:
        """Registers nothing: toolpen registers the tool."""
        _returning_the_function(fn)

    def run(self, *args: Any, **options: Any) -> None:
        """Refused: a tool call runs no server."""
        raise_not_in_toolpen("FastMCP.run", "runs a server")


class MCPServer(FastMCP):
    """mcp 2.x's name for ``FastMCP``."""

    __slots__ = ()


class Context(Subscriptable):
    """MCP's tool ``Context`` outside a server: logging and progress go nowhere, there is no request."""

    __slots__ = ()
    request_context = None
    readable = frozenset({"request_context", "log", "debug", "info", "warning", "error", "report_progress"})

    async def log(self, level: str, message: str, **extra: Any) -> None:
        """Sent to the MCP client by a server; nowhere here."""

    async def debug(self, message: str, **extra: Any) -> None:
        """As ``log``."""

    async def info(self, message: str, **extra: Any) -> None:
        """As ``log``."""

    async def warning(self, message: str, **extra: Any) -> None:
        """As ``log``."""

    async def error(self, message: str, **extra: Any) -> None:
        """As ``log``."""

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Sent to the MCP client by a server; nowhere here."""


class ServerSession(StandIn):
    """MCP's ``ServerSession``, as the annotation ``Context[ServerSession, None]`` names it."""

    __slots__ = ()

    def __init__(self, *args: Any, **options: Any) -> None:
        raise_not_in_toolpen("ServerSession", "is a live client session")


class MCPServerError(Exception):
    """MCP's base error of a server."""


class ToolError(MCPServerError):
    """MCP's ``ToolError``: what a tool raises for an expected failure (the call's ``tool_error``)."""


class ResourceError(MCPServerError):
    """MCP's ``ResourceError``."""


_EXCEPTIONS = by_name(ToolError, ResourceError)
_SERVER = {**by_name(Context), **_EXCEPTIONS}
MEMBERS: dict[str, dict[str, Any]] = {
    "mcp.server.fastmcp": {**by_name(FastMCP), **_SERVER},
    "mcp.server.fastmcp.server": by_name(FastMCP, Context),
    "mcp.server.fastmcp.exceptions": {"FastMCPError": MCPServerError, **_EXCEPTIONS},
    "mcp.server.mcpserver": {**by_name(MCPServer), **_SERVER},
    "mcp.server.mcpserver.context": by_name(Context),
    "mcp.server.mcpserver.exceptions": {**by_name(MCPServerError), **_EXCEPTIONS},
    "mcp.server.session": by_name(ServerSession),
}
