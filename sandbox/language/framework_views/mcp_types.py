"""The view of ``mcp.types``: MCP's content and result classes a tool returns, the real ones.

A tool of an MCP server returns ``TextContent``, ``ImageContent``, ``CallToolResult``, ...: the
installed ``mcp``'s pydantic models, so that a result serializes as MCP serializes it (by alias:
``mimeType``, ``_meta``, ``isError``). Only those data classes are in the view: no session,
transport, JSON-RPC or request classes, and nothing of the rest of the ``mcp`` package (its
client, server and transports). Loaded by the pool when a tool imports it (``warmup``).
"""

from __future__ import annotations

from typing import Any

from mcp import types

NAMES = (
    "TextContent",
    "ImageContent",
    "AudioContent",
    "EmbeddedResource",
    "ResourceLink",
    "TextResourceContents",
    "BlobResourceContents",
    "CallToolResult",
    "Annotations",
    "ToolAnnotations",
    "Icon",
    "ContentBlock",
    "Role",
)


def members(name: str) -> dict[str, Any]:
    """The view of ``mcp.types``."""
    return {member: getattr(types, member) for member in NAMES if hasattr(types, member)}


def left_out(module: str, member: str) -> str | None:
    """Why the view leaves out ``member``."""
    return (
        "toolpen's mcp.types offers the content and result classes a tool returns"
        f" ({', '.join(NAMES)}): sessions, requests and transports have no place in a tool call"
    )
