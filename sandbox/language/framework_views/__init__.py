"""Framework views: ``import`` of ADK, the Agents SDK, MCP's server and LangChain core in a tool file.

Pasted framework tool code imports its framework for the decorator, the context annotation and
the agent or server it builds around the tool. These views give toolpen's own stand-ins
(``inert.py``): decorators that hand back the function, annotation classes, inert agents and
servers. None of them is, holds or leads to the framework's objects (the frameworks need not be
installed). MCP's content classes are the real ones (``mcp_types.py``, a library view).
"""

from __future__ import annotations

from typing import Any

from sandbox.language.framework_views import adk, agents_sdk, langchain, mcp_server

MEMBERS: dict[str, dict[str, Any]] = {
    **adk.MEMBERS,
    **agents_sdk.MEMBERS,
    **mcp_server.MEMBERS,
    **langchain.MEMBERS,
}
"""Module name -> the members of its view."""
TYPE_MODULES = frozenset(
    {module.__name__ for module in (adk, agents_sdk, mcp_server, langchain)}
    | {"mcp.types", "mcp_types._types"}
)
"""Where the views' classes are defined (mcp 2.x defines its content classes in ``mcp_types._types``):
what a name in an annotation string may resolve to (``annotations.py``)."""


def members(name: str) -> dict[str, Any]:
    """The members of the view of ``name`` (one of ``MEMBERS``)."""
    return dict(MEMBERS[name])


def left_out_reason(module: str) -> str:
    """Why a framework view has not the name asked for."""
    offered = ", ".join(sorted(MEMBERS[module]))
    return (
        f"toolpen's {module} offers {offered}: stand-ins for running the file's tool functions"
        " (docs/security.md, framework views)"
    )
