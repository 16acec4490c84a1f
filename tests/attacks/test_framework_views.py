"""Attacks on the framework views (``sandbox/language/framework_views``): from the stand-ins, the
decorators, the MCP server object and MCP's content classes, tool code reaches neither the real
framework modules, nor the real builtins, nor host objects, under the language wall."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import Runtime
from sandbox.common.errors import PolicyViolation

HEADER = """
from agents import Agent, RunContextWrapper, Runner, function_tool
from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool, ToolContext
from langchain_core.tools import tool
from mcp.server.fastmcp import Context, FastMCP
from mcp.types import TextContent

mcp = FastMCP("attack")


def helper(x: int) -> int:
    return x
"""

ATTACKS = {
    # the real framework modules: no attribute of a stand-in or view leads to them
    "decorator_globals": "return function_tool.__globals__",
    "mcp_server_private": "return mcp._mcp_server",
    "mcp_server_method_self": "return mcp.tool.__self__",
    "mcp_server_settings": "return mcp.settings",
    "mcp_server_getattr": "return getattr(mcp, '_tool_manager')",
    "mcp_server_vars": "return vars(mcp)",
    "mcp_server_setattr": "mcp.name = 'x'; mcp.tool = print; return mcp.tool",
    "agent_attribute": "return Agent(name='a', tools=[helper]).tools",
    "agent_class_dict": "return LlmAgent.__dict__",
    "agent_mro": "return type(Agent(name='a')).__mro__",
    "agent_subclasses": "return Agent.__subclasses__()",
    "runner_runs": "return Runner.run(Agent(name='a'), 'hi')",
    "runner_func": "return Runner.run.__func__",
    "wrapper_closure": "return FunctionTool(func=helper).func.__closure__",
    "wrapper_globals_via_func": "return FunctionTool(func=helper).__init__.__globals__",
    "tool_context_built": "return ToolContext()",
    "run_context_init_globals": "return RunContextWrapper.__init__.__globals__",
    # the same names spelled at run time, past the compiler: the guards refuse them
    "getattr_decorator_globals": "return getattr(function_tool, '__glo' + 'bals__')",
    "getattr_server_method_self": "return getattr(getattr(mcp, 'tool'), '__se' + 'lf__')",
    "getattr_agent_class_dict": "return getattr(Agent, '__di' + 'ct__')",
    "getattr_wrapper_slot": "return getattr(FunctionTool(func=helper), 'fu' + 'nc').__code__",
    "context_method_code": "return Context.info.__code__",
    "context_method_globals": "return getattr(Context().log, '__globals__')",
    "decorated_is_the_function": "return tool(helper).__globals__",
    "format_walk": "return '{0.__globals__}'.format(function_tool)",
    "mcp_types_fields_walk": "return TextContent.model_fields['type'].annotation.__mro__",
    # the classes are shared by the worker's later calls: their own state is closed
    "mcp_types_config_write": "TextContent.model_config['frozen'] = True; return 1",
    "mcp_types_fields_clear": "TextContent.model_fields.clear(); return 1",
    "mcp_types_rebuild": "return TextContent.model_rebuild(force=True)",
    "mcp_types_parse_file": "return TextContent.parse_file('/etc/passwd')",
    "mcp_types_config_via_instance": "return type(TextContent(type='text', text='a')).model_config",
    "mcp_types_validator_globals": "return TextContent.model_validate.__func__",
    "mcp_types_private_module": "import mcp.types as t; return t.mcp",
    "mcp_types_not_listed": "from mcp.types import JSONRPCMessage; return JSONRPCMessage",
    "framework_package_real_submodule": "import agents.run as r; return r",
    "adk_not_listed": "from google.adk.tools import google_search; return google_search",
    "mcp_session_module": "import mcp.server.session as s; return s.ServerSession()",
}
"""Each tool body must end in the wall's refusal (at compile time, or a policy error), else in the
error the stand-in gives (``STAND_IN_ERRORS``), never in a value."""
STAND_IN_ERRORS = {
    "mcp_server_setattr": "'FastMCP' object attribute 'tool' is read-only",
    "runner_runs": "Runner.run runs an agent: not inside a toolpen tool call",
    "tool_context_built": "ToolContext is handed to a tool's tool_context parameter",
    "mcp_types_private_module": "module 'mcp.types' has no attribute 'mcp'",
    "mcp_session_module": "ServerSession is a live client session",
}


def _source(body: str) -> str:
    return HEADER + '\n\ndef attack() -> str:\n    """Attack."""\n    ' + body + "\n"


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="all", pool_size=1) as runtime:
        yield runtime


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_framework_view_gives_nothing_of_the_framework_or_the_host(rt: Runtime, name: str) -> None:
    try:
        rt.add_tool(_source(ATTACKS[name]), "attack", replace=True)
    except PolicyViolation as refused:  # refused at compile time (a special attribute): held
        assert "is not available" in str(refused)
        return
    result = rt.call("attack", {})
    assert result.error is not None, f"the wall gave {result.output!r}"
    if name in STAND_IN_ERRORS:
        assert STAND_IN_ERRORS[name] in result.error.message
    else:
        assert result.error.kind == "policy", result.error.to_dict()


def test_the_stand_ins_let_the_modules_code_run(rt: Runtime) -> None:
    """The same header runs, and what it builds answers the attributes a file reads back."""
    body = (
        "a = Agent(name='a', tools=[helper]); f = FunctionTool(func=helper)\n"
        "    return [a.name, f.name, f.func(3), mcp.name, function_tool(helper)(4), tool('x')(helper)(5),"
        " function_tool(name_override='n')(helper)(6), mcp.tool(name='m')(helper)(7)]"
    )
    rt.add_tool(_source(body), "attack", replace=True)
    result = rt.call("attack", {})
    assert result.error is None, result.error
    assert result.output == ["a", "helper", 3, "attack", 4, 5, 6, 7]


def test_decorator_misuse_fails_as_in_the_framework(rt: Runtime) -> None:
    for body, message in (
        ("return mcp.tool(helper)", "Did you forget to call it?"),
        ("return function_tool(nonsense=1)", "unexpected keyword argument 'nonsense'"),
        ("return tool(description='d', bogus=True)", "unexpected keyword argument 'bogus'"),
    ):
        rt.add_tool(_source(body), "attack", replace=True)
        error = rt.call("attack", {}).error
        assert error is not None and message in error.message


def test_the_rest_of_a_framework_is_refused_with_its_reason(rt: Runtime) -> None:
    """A framework's runners, clients and sessions are no part of a view: an ImportError naming why."""
    for module in ("mcp.client.session", "google.adk.runners", "agents.run", "langchain_core.messages"):
        rt.add_tool(_source(f"import {module}\n    return 1"), "attack", replace=True)
        error = rt.call("attack", {}).error
        assert error is not None and "the framework's runners, clients and sessions" in error.message
