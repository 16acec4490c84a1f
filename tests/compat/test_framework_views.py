"""Framework tool code pasted unchanged runs under the default walls as in its framework (issue 31):
each source below is given to the installed framework's own schema builder and runner (the Agents
SDK's ``function_tool``, MCP's ``MCPServer``, LangChain's ``tool``, ADK's ``FunctionTool``) and to
toolpen under ``walls="all"``; name, description, parameters and result must be the same.

The framework views themselves are ``sandbox/language/framework_views``."""

from __future__ import annotations

import asyncio
import json
import sys
import types
from collections.abc import Iterator
from typing import Any

import pydantic_core
import pytest

from runtime import Runtime
from runtime._schema import derive_spec

AGENTS_TOOL = '''
from __future__ import annotations

from dataclasses import dataclass

from agents import Agent, RunContextWrapper, Runner, function_tool


@dataclass
class Trip:
    step: int = 1
    origin: str | None = None


@function_tool(name_override="save_origin", description_override="Save the origin", strict_mode=False)
def save_locations(ctx: RunContextWrapper[Trip], origin: str, note: str = "") -> str:
    """Save it.

    Args:
        origin: where from
    """
    ctx.context.origin = origin
    return f"{origin} at step {ctx.context.step}{note} {type(ctx.context).__name__}"


@function_tool
def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


trip_agent = Agent[Trip](name="trip", tools=[save_locations, shout])
'''

MCP_TOOL = '''
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import EmbeddedResource, ImageContent, TextContent, TextResourceContents

mcp = MCPServer("Example")


@mcp.tool(name="div", description="Divide.")
def divide(a: float, b: float = 2.0) -> float:
    """Divide two numbers."""
    if b == 0:
        raise ToolError("Cannot divide by zero")
    return a / b


@mcp.tool()
async def contents(label: str, ctx: Context) -> list[TextContent | ImageContent | EmbeddedResource]:
    """Several kinds of content."""
    return [
        TextContent(type="text", text=label),
        ImageContent(type="image", data="aGk=", mime_type="image/png"),
        EmbeddedResource(
            type="resource", resource=TextResourceContents(uri="test://r", mime_type="text/plain", text="t")
        ),
    ]
'''

LANGCHAIN_TOOL = '''
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from pydantic import BaseModel, Field


class LookupArgs(BaseModel):
    note: str = Field(description="the note")


@tool("lookup", args_schema=LookupArgs)
def lookup(note: str) -> str:
    """Look a note up."""
    return note.upper()


@tool
def whoami(config: RunnableConfig) -> str:
    """Who is asking."""
    return str(config["configurable"].get("user"))
'''

ADK_TOOL = '''
from google.adk.agents import Agent
from google.adk.tools import FunctionTool, ToolContext


def remember(note: str, tool_context: ToolContext) -> dict:
    """Remember a note.

    Args:
        note: what to remember
    """
    tool_context.state["notes"] = tool_context.state.get("notes", []) + [note]
    return {"count": len(tool_context.state["notes"])}


root_agent = Agent(name="memory", model="gemini-2.0-flash", tools=[FunctionTool(func=remember)])
'''


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="all", pool_size=1) as runtime:
        for source in (AGENTS_TOOL, MCP_TOOL, LANGCHAIN_TOOL, ADK_TOOL):
            for function in _top_functions(source):
                runtime.add_tool(source, function, replace=True)
        yield runtime


def _top_functions(source: str) -> list[str]:
    import ast

    return [
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _framework_module(source: str) -> dict[str, Any]:
    """The source run by plain CPython with the real framework."""
    module = types.ModuleType(f"framework_tool_{abs(hash(source))}")
    sys.modules[module.__name__] = module  # dataclasses and pydantic resolve annotations there
    exec(compile(source, f"{module.__name__}.py", "exec"), vars(module))
    return vars(module)


def _untitled(schema: Any) -> Any:
    """A schema without pydantic's ``title`` keys (toolpen's schemas carry none)."""
    if isinstance(schema, dict):
        return {key: _untitled(value) for key, value in schema.items() if key != "title"}
    if isinstance(schema, list):
        return [_untitled(item) for item in schema]
    return schema


def test_agents_sdk_function_tool_schema_and_run(rt: Runtime) -> None:
    from agents.tool_context import ToolContext

    from runtime.adapters.openai_agents import function_tool

    real = _framework_module(AGENTS_TOOL)
    for function, arguments in (("save_locations", {"origin": "Paris"}), ("shout", {"text": "hey"})):
        tool = real[function]
        spec = derive_spec(AGENTS_TOOL, function)
        assert (spec.name, spec.description) == (tool.name, tool.description)
        offered = function_tool(rt, rt.registry.get(tool.name))  # as toolpen's adapter hands it to the SDK
        assert offered.strict_json_schema == tool.strict_json_schema  # strict_mode=False, and the default
        assert offered.params_json_schema == _untitled(tool.params_json_schema)
        context = ToolContext(
            context=real["Trip"](),
            tool_name=tool.name,
            tool_call_id="c1",
            tool_arguments=json.dumps(arguments),
        )
        output = asyncio.run(tool.on_invoke_tool(context, json.dumps(arguments)))
        result = rt.call(tool.name, arguments, context={"state": {"step": 1}})
        assert result.error is None
        assert result.output == output


def test_mcp_server_tool_schema_and_run(rt: Runtime) -> None:
    server = _framework_module(MCP_TOOL)["mcp"]
    listed = {tool.name: tool for tool in asyncio.run(server.list_tools())}
    for function in ("divide", "contents"):
        spec = derive_spec(MCP_TOOL, function)
        tool = listed[spec.name]
        assert spec.description == tool.description
        assert spec.parameters == _untitled(tool.input_schema)
    answer = asyncio.run(server.call_tool("div", {"a": 3}))
    assert rt.call("div", {"a": 3}).output == answer.structured_content["result"]
    answer = asyncio.run(server.call_tool("contents", {"label": "mixed"}))
    expected = [pydantic_core.to_jsonable_python(content) for content in answer.content]
    assert rt.call("contents", {"label": "mixed"}).output == expected
    with pytest.raises(Exception, match="Cannot divide by zero"):
        asyncio.run(server.call_tool("div", {"a": 3, "b": 0}))
    failed = rt.call("div", {"a": 3, "b": 0})
    assert failed.error is not None and failed.error.message.startswith("ToolError: Cannot divide by zero")


def test_langchain_tool_schema_and_run(rt: Runtime) -> None:
    real = _framework_module(LANGCHAIN_TOOL)
    lookup = real["lookup"]
    spec = derive_spec(LANGCHAIN_TOOL, "lookup")
    assert (spec.name, spec.description) == (lookup.name, lookup.description)
    expected = _untitled(lookup.tool_call_schema.model_json_schema())
    expected.pop("description")
    assert spec.parameters == expected
    assert rt.call("lookup", {"note": "milk"}).output == lookup.invoke({"note": "milk"})
    whoami = real["whoami"]
    assert derive_spec(LANGCHAIN_TOOL, "whoami").parameters["properties"] == {}
    state = {"user": "ada"}
    assert rt.call("whoami", {}, context={"state": state}).output == whoami.invoke(
        {}, {"configurable": state}
    )


def test_adk_function_tool_declaration_and_run(rt: Runtime) -> None:
    real = _framework_module(ADK_TOOL)
    declaration = real["root_agent"].tools[0]._get_declaration()
    spec = derive_spec(ADK_TOOL, "remember")
    assert spec.name == declaration.name
    # ADK's description is the whole docstring, Args included; toolpen's its summary (the schema has the rest)
    assert declaration.description.startswith(spec.description)
    parameters = declaration.parameters_json_schema  # no descriptions: ADK leaves the Args to the description
    assert set(spec.parameters["properties"]) == set(parameters["properties"])
    assert spec.parameters["required"] == parameters["required"]
    state = {"notes": ["eggs"]}
    context = types.SimpleNamespace(state=dict(state))
    expected = real["remember"]("milk", context)
    result = rt.call("remember", {"note": "milk"}, context={"state": state})
    assert (result.output, result.state) == (expected, context.state)


def test_under_the_process_wall_a_real_frameworks_tool_object_gives_its_function() -> None:
    """Plain CPython imports the real frameworks (the worker looks up the tool through
    ``framework_call.framework_function``): LangChain's StructuredTool and ADK's FunctionTool give
    their function; the Agents SDK's FunctionTool keeps none, and the error names it."""
    from sandbox.bridges.framework_call import framework_function, not_a_function

    langchain = _framework_module(LANGCHAIN_TOOL)
    adk = _framework_module(ADK_TOOL)
    assert framework_function(langchain["lookup"])("milk") == "MILK"
    assert framework_function(adk["root_agent"].tools[0]) is adk["remember"]
    shout = _framework_module(AGENTS_TOOL)["shout"]
    assert framework_function(shout) is shout
    assert "agents.tool.FunctionTool, not a function" in not_a_function("shout", shout)
