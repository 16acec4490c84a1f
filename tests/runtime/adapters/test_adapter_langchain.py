"""runtime.adapters.langchain: StructuredTools called through LangChain's tool-calling API, from a
scripted chat model bound to them; the calls run sandboxed in a toolpen session."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from runtime import Runtime
from runtime.adapters.langchain import structured_tools
from samples.hosts.scripted.langchain_chat import ScriptedChatModel, tool_call
from tests.conftest import SAMPLES

LOYALTY = (SAMPLES / "update_customer_loyalty_points.py").read_text()
CONFIG = {"configurable": {"session_id": "s1"}}


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://") as rt:
        rt.add_tool(LOYALTY)
        yield rt


def test_a_bound_model_calls_the_tool_and_the_session_keeps_the_state(runtime: Runtime) -> None:
    tools = {tool.name: tool for tool in structured_tools(runtime)}
    model = ScriptedChatModel(
        turns=[tool_call("update_customer_loyalty_points", {"points_to_add": 50}, "c1"), AIMessage("Done.")]
    ).bind_tools(list(tools.values()))
    messages = [HumanMessage("Add 50 points")]
    reply = model.invoke(messages)
    for call in reply.tool_calls:
        message = tools[call["name"]].invoke(call, config=CONFIG)
        assert isinstance(message, ToolMessage) and message.tool_call_id == "c1"
        assert '"loyalty_points": 50' in message.content
        messages += [reply, message]
    assert model.invoke(messages).content == "Done."
    assert runtime.store.require_session("s1").state["customer_profile"]["loyalty_points"] == 50
    # async, same session: the points accumulate
    call = {
        "name": "update_customer_loyalty_points",
        "args": {"points_to_add": 5},
        "id": "c2",
        "type": "tool_call",
    }
    asyncio.run(tools["update_customer_loyalty_points"].ainvoke(call, config=CONFIG))
    assert runtime.store.require_session("s1").state["customer_profile"]["loyalty_points"] == 55


def test_the_args_schema_is_the_derived_one_and_failures_are_error_messages(runtime: Runtime) -> None:
    (tool,) = structured_tools(runtime)
    assert tool.args == {
        "points_to_add": {"type": "integer", "description": tool.args["points_to_add"]["description"]}
    }
    call = {"name": tool.name, "args": {"points_to_add": "many"}, "id": "c9", "type": "tool_call"}
    message = tool.invoke(call, config=CONFIG)
    assert message.status == "error"
    assert message.content.startswith("invalid_arguments: ")


@pytest.mark.slow
def test_the_sample_host_runs() -> None:
    host = SAMPLES / "hosts" / "langchain_host.py"
    done = subprocess.run(
        [sys.executable, str(host)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "agent: Done." in done.stdout
    assert "loyalty_points': 50" in done.stdout
