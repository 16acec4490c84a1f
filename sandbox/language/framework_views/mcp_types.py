"""The view of ``mcp.types``: MCP's content and result classes a tool returns, the real ones.

A tool of an MCP server returns ``TextContent``, ``ImageContent``, ``CallToolResult``, ...: the
installed ``mcp``'s pydantic models, so that a result serializes as MCP serializes it (by alias:
``mimeType``, ``_meta``, ``isError``). Only those data classes are in the view: no session,
transport, JSON-RPC or request classes, and nothing of the rest of the ``mcp`` package (its
client, server and transports). Loaded by the pool when a tool imports it (``warmup``).

The classes are shared by every call a worker runs: what would change one for the next call is
closed (the class's config and field dicts, ``model_rebuild`` and its pydantic v1 spelling
``update_forward_refs``), and so is pydantic's
deprecated ``parse_file``, which opens a file by name (``CLOSED``); instances are the tool's own
and read and written as pydantic has them.
"""

from __future__ import annotations

from typing import Any

from mcp import types

from sandbox.language.library_rules import LibraryRule, register_library_types
from sandbox.language.rules import refuse

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


_SHARED = (
    "it is the class's own state, shared with later calls; use model_json_schema() or the instance's fields"
)
CLOSED = {
    **dict.fromkeys(
        ("model_config", "model_fields", "model_computed_fields", "model_rebuild", "update_forward_refs"),
        _SHARED,
    ),
    "parse_file": "it opens a file by name; use model_validate_json on the text",
}
"""What tool code may not read of an MCP class, and why."""
_MODULES = frozenset(
    str(type.__dict__["__module__"].__get__(value))
    for value in (getattr(types, name, None) for name in NAMES)
    if isinstance(value, type)
)


def _attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
    if name in CLOSED:
        refuse(f"mcp.types: {name!r} is not available in toolpen: {CLOSED[name]}")
    return getattr(obj, name, *default)


_RULE = LibraryRule(_attribute)


def _mcp_types_rule(cls: type) -> LibraryRule | None:
    module = str(type.__dict__["__module__"].__get__(cls))
    return _RULE if module in _MODULES and not issubclass(cls, BaseException) else None


register_library_types(_mcp_types_rule)


def members(name: str) -> dict[str, Any]:
    """The view of ``mcp.types``."""
    return {member: getattr(types, member) for member in NAMES if hasattr(types, member)}


def left_out(module: str, member: str) -> str | None:
    """Why the view leaves out ``member``."""
    return (
        "toolpen's mcp.types offers the content and result classes a tool returns"
        f" ({', '.join(NAMES)}): sessions, requests and transports have no place in a tool call"
    )
