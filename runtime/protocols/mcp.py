"""MCP: serve a runtime's tools with the official ``mcp`` SDK's low-level server.

The tool list is exactly ``tool.schema("mcp")`` (what ``toolpen schema --format mcp`` prints)
plus the read-only / idempotent hints a tool was registered with. A call answers a JSON text
block and the same value as structured content; a failure is a result with ``isError``, never
a protocol error. Each MCP session gets its own toolpen session: over stdio, the connection;
over streamable HTTP, the ``mcp-session-id``. Requests of the stateless protocol have no MCP
session: a client keeps one by sending a session key of its own in every call's ``_meta``
(``"toolpen/session-key"``, at least 32 characters, secret like a password: whoever knows it
acts in that session). The toolpen session is named from a hash of the key, never the key.

A call goes through the one turn runner (``runtime.protocols.run_calls``, ``Runtime.run_turn``):
an ``ASYNCHRONOUS`` tool answers ``{"status": "pending"}`` at once and commits its result in the
toolpen session when it ends. An MCP call has one answer and the server no later message to
the model, so that result reaches the model only through the session (a later call reads it).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from runtime._calls import ToolCall
from runtime._results import ToolResult
from runtime.protocols import error_text, run_calls
from sandbox.common.errors import InvalidArguments

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from runtime._registry import Tool
    from runtime._runtime import Runtime

__all__ = [
    "SESSION_HEADER",
    "SESSION_KEY_META",
    "build_server",
    "http_app",
    "mcp_tool",
    "serve_http",
    "serve_stdio",
]

SESSION_HEADER = "mcp-session-id"
SESSION_KEY_META = "toolpen/session-key"
"""The ``_meta`` entry of a call that names its toolpen session (any transport, any protocol era)."""
MIN_SESSION_KEY = 32


def mcp_tool(tool: Tool) -> types.Tool:
    """The MCP definition of one tool: its ``mcp`` schema and its registered hints."""
    definition = tool.schema("mcp")
    hints = {}
    if tool.options.read_only:
        hints["readOnlyHint"] = True
    if tool.options.idempotent:
        hints["idempotentHint"] = True
    if hints:
        definition = {**definition, "annotations": {**definition.get("annotations", {}), **hints}}
    return types.Tool.model_validate(definition)


def _structured(output: Any) -> dict[str, Any]:
    """Structured content must be an object; other values are wrapped as ``{"result": value}``."""
    return output if isinstance(output, dict) else {"result": output}


def _toolpen_session(
    ctx: ServerRequestContext[dict[str, str]], params: types.CallToolRequestParams
) -> str | None:
    """The toolpen session of this call: its session key's, else its MCP session's."""
    key = (params.meta or {}).get(SESSION_KEY_META)
    if key is not None:
        if not isinstance(key, str) or len(key) < MIN_SESSION_KEY:
            raise InvalidArguments(
                f"_meta[{SESSION_KEY_META!r}] must be a secret string of at least {MIN_SESSION_KEY} characters"
            )
        return f"mcp-key-{hashlib.sha256(key.encode()).hexdigest()[:40]}"
    request = ctx.request
    if request is None:
        return ctx.lifespan_context["session_id"]
    if ctx.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
        # A stateless-era request: the SDK never checked its mcp-session-id header (only the
        # handshake era's session manager knows sessions and their owners), so trusting it
        # would let any client run in, read and change another client's session.
        return None
    mcp_session = request.headers.get(SESSION_HEADER)
    return f"mcp-{mcp_session}" if mcp_session else None


def build_server(runtime: Runtime, *, name: str = "toolpen") -> Server[dict[str, str]]:
    """A low-level MCP server listing and calling the tools of ``runtime``."""

    @asynccontextmanager
    async def connection(_: Server[dict[str, str]]) -> AsyncIterator[dict[str, str]]:
        yield {"session_id": f"mcp-{uuid.uuid4().hex}"}

    async def list_tools(
        ctx: ServerRequestContext[dict[str, str]], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(tool) for tool in runtime.tools(include_deferred=True)])

    async def call_tool(
        ctx: ServerRequestContext[dict[str, str]], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            session_id = _toolpen_session(ctx, params)
        except InvalidArguments as error:
            result = ToolResult(False, error=error)
        else:
            call = ToolCall(params.name, dict(params.arguments or {}))
            result = await anyio.to_thread.run_sync(lambda: _run(runtime, call, session_id))
        if not result.success:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=error_text(result.error))], is_error=True
            )
        text = json.dumps(result.output, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=_structured(result.output),
        )

    return Server(name, lifespan=connection, on_list_tools=list_tools, on_call_tool=call_tool)


def _run(runtime: Runtime, call: ToolCall, session_id: str | None) -> ToolResult:
    """One MCP call through the turn runner; its answer (pending for an asynchronous tool)."""

    def define(tool: Tool) -> dict[str, Any]:
        return mcp_tool(tool).model_dump(by_alias=True, exclude_none=True)

    (answered,) = run_calls(runtime, [call], define=define, session_id=session_id)
    return answered.result


async def serve_stdio(runtime: Runtime) -> None:
    """Serve over this process's stdin and stdout until the client closes them."""
    server = build_server(runtime)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http_app(runtime: Runtime, *, host: str = "127.0.0.1") -> Starlette:
    """A Starlette app serving streamable HTTP at ``/mcp``."""
    return build_server(runtime).streamable_http_app(host=host)


def serve_http(runtime: Runtime, *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(http_app(runtime, host=host), host=host, port=port, log_level="warning")
