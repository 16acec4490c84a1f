"""runtime.adapters.langchain: StructuredTools called through LangChain's tool-calling API, from a
scripted chat model bound to them; the calls run sandboxed in a toolpen session."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent

from runtime import Runtime
from runtime.adapters.langchain import structured_tools
from samples.hosts.scripted.langchain_chat import ScriptedChatModel, tool_call
from tests.conftest import SAMPLES

LOYALTY = (SAMPLES / "update_customer_loyalty_points.py").read_text()
CONFIG = {"configurable": {"session_id": "s1"}}
ADD_POINTS = '''
def add_points(points: int) -> dict:
    """Adds loyalty points."""
    context.state["points"] = context.state.get("points", 0) + points
    return {"points": context.state["points"]}
'''
RESERVED = '''
def echo(config: str, self: str, run_manager: str, callbacks: str = "none") -> dict:
    """Echoes parameters whose names StructuredTool takes for itself."""
    return {"config": config, "self": self, "run_manager": run_manager, "callbacks": callbacks}
'''


@pytest.fixture(scope="module")
def runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://") as rt:
        rt.add_tool(LOYALTY)
        rt.add_tool(ADD_POINTS)
        rt.add_tool(RESERVED)
        yield rt


def calls(*called: tuple[str, dict[str, object], str]) -> AIMessage:
    """One model response with these tool calls (name, arguments, id)."""
    return AIMessage(
        content="", tool_calls=[{"name": n, "args": a, "id": i, "type": "tool_call"} for n, a, i in called]
    )


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
    tool = {tool.name: tool for tool in structured_tools(runtime)}["update_customer_loyalty_points"]
    assert tool.args == {
        "points_to_add": {"type": "integer", "description": tool.args["points_to_add"]["description"]}
    }
    call = {"name": tool.name, "args": {"points_to_add": "many"}, "id": "c9", "type": "tool_call"}
    message = tool.invoke(call, config=CONFIG)
    assert message.status == "error"
    assert message.content.startswith("invalid_arguments: ")


def test_parameters_langchain_reserves_reach_the_tool_under_their_own_names(runtime: Runtime) -> None:
    tools = {tool.name: tool for tool in structured_tools(runtime)}
    assert set(tools["echo"].args) == {"config", "self", "run_manager", "callbacks"}  # as the model sees them
    given = {"config": "a", "self": "b", "run_manager": "c", "callbacks": "d"}
    model = ScriptedChatModel(turns=[calls(("echo", given, "c1"))]).bind_tools(list(tools.values()))
    (call,) = model.invoke([HumanMessage("echo")]).tool_calls
    assert tools["echo"].invoke(call).content == json.dumps(given)
    assert asyncio.run(tools["echo"].ainvoke(call)).content == json.dumps(given)


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_langgraphs_react_agent_keeps_state_per_thread_with_reserved_names_and_parallel_calls(
    runtime: Runtime,
) -> None:
    model = ScriptedChatModel(
        turns=[
            calls(("add_points", {"points": 1}, "call_0"), ("add_points", {"points": 2}, "call_1")),
            AIMessage("Done."),
            # the next turn repeats the id call_0 with other arguments, and uses a reserved name
            calls(
                ("add_points", {"points": 100}, "call_0"),
                ("echo", {"config": "x", "self": "y", "run_manager": "z"}, "call_1"),
            ),
            AIMessage("Done."),
        ]
    )
    agent = create_react_agent(model, structured_tools(runtime), checkpointer=InMemorySaver())
    thread = {"configurable": {"thread_id": "thread-1"}}  # no session_id: the thread is the session
    first = agent.invoke({"messages": [HumanMessage("add 1 and 2")]}, thread)
    # ToolNode runs the two at once, in either order: the second sees the first's write
    answered = sorted(
        json.loads(m.content)["points"] for m in first["messages"] if isinstance(m, ToolMessage)
    )
    assert answered in ([1, 3], [2, 3])
    second = agent.invoke({"messages": [HumanMessage("add 100")]}, thread)
    answers = [m for m in second["messages"] if isinstance(m, ToolMessage)][-2:]
    assert [m.content for m in answers] == [
        '{"points": 103}',
        '{"config": "x", "self": "y", "run_manager": "z", "callbacks": "none"}',
    ]
    assert runtime.store.require_session("thread-1").state["points"] == 103


@pytest.mark.slow
def test_the_sample_host_runs() -> None:
    host = SAMPLES / "hosts" / "langchain_host.py"
    done = subprocess.run(
        [sys.executable, str(host)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "agent: Done." in done.stdout
    assert "loyalty_points': 50" in done.stdout
