"""The schema reader and framework tool decorators (``runtime/_schema/decorators.py``): the decorated
function is the tool; the decorator's arguments override its name, description and (LangChain's
``args_schema``) parameters, as each framework reads them."""

from __future__ import annotations

import pytest

from runtime._schema import derive_spec
from sandbox.common.errors import InvalidSource

AGENTS = '''
from agents import function_tool
from agents.tool import function_tool as ft


@function_tool(name_override="lookup_order", description_override="Find an order.", strict_mode=False)
def find(order_id: str) -> str:
    """Ignored summary."""
    return order_id


@ft
def plain(x: int) -> int:
    """Plain one."""
    return x
'''

MCP = '''
from mcp.server.fastmcp import FastMCP

server = FastMCP("demo")
other = object()


@server.tool(name="add_numbers", description="Add them.")
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


@other.tool(name="not_a_server")
def untouched() -> int:
    """Untouched."""
    return 1
'''

LANGCHAIN = '''
from langchain_core.tools import tool
from pydantic import BaseModel, Field


class Query(BaseModel):
    text: str = Field(description="what to search")
    limit: int = 3


@tool("web_search", args_schema=Query)
def search(text: str, limit: int = 3) -> list:
    """Search the web."""
    return []


@tool(args_schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})
def literal(q: str) -> str:
    """Literal schema."""
    return q


@tool(args_schema=Missing)
def broken(q: str) -> str:
    """Broken."""
    return q
'''


def test_agents_sdk_overrides_and_the_function_by_either_name() -> None:
    for name in ("find", "lookup_order"):
        spec = derive_spec(AGENTS, name)
        assert (spec.name, spec.entry, spec.description) == ("lookup_order", "find", "Find an order.")
        assert spec.strict is False
    plain = derive_spec(AGENTS, "plain")
    assert (plain.name, plain.entry, plain.description, plain.strict) == ("plain", "", "Plain one.", None)


def test_mcp_tool_overrides_only_on_a_server_the_file_builds() -> None:
    spec = derive_spec(MCP, "add")
    assert (spec.name, spec.entry, spec.description) == ("add_numbers", "add", "Add them.")
    assert derive_spec(MCP, "untouched").name == "untouched"
    with pytest.raises(InvalidSource, match="not_a_server"):
        derive_spec(MCP, "not_a_server")


def test_langchain_name_and_args_schema() -> None:
    spec = derive_spec(LANGCHAIN, "search")
    assert spec.name == "web_search"
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "what to search"},
            "limit": {"type": "integer", "default": 3},
        },
        "required": ["text"],
    }
    literal = derive_spec(LANGCHAIN, "literal").parameters
    assert literal == {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    broken = derive_spec(LANGCHAIN, "broken")
    assert any("args_schema must name a model class" in error.message for error in broken.errors)
