"""runtime.adapters.openai_agents: the Agents SDK's own Runner against a scripted model, tools sandboxed."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import pytest
from agents import Agent, RunConfig, Runner, SQLiteSession

from runtime import Runtime
from runtime.adapters.openai_agents import function_tools
from samples.hosts.scripted.agents_sdk import ScriptedModel, message, tool_call
from tests.conftest import SAMPLES

LOYALTY = (SAMPLES / "update_customer_loyalty_points.py").read_text()
ESCAPE = '''
def escape() -> str:
    """Tries to read a host file (the call's scratch directory has none)."""
    return open("/etc/passwd").read()
'''


ADD_POINTS = '''
def add_points(points: int) -> dict:
    """Adds loyalty points."""
    context.state["points"] = context.state.get("points", 0) + points
    return {"points": context.state["points"]}
'''


@pytest.fixture(scope="module")
def runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://") as rt:
        rt.add_tool(LOYALTY)
        rt.add_tool(ESCAPE)
        rt.add_tool(ADD_POINTS)
        yield rt


def run(
    runtime: Runtime, turns: list, context: object = None, **options: object
) -> tuple[str, ScriptedModel]:
    model = ScriptedModel(turns)
    agent = Agent(name="loyalty_agent", instructions="Help.", model=model, tools=function_tools(runtime))
    result = asyncio.run(
        Runner.run(
            agent, "Add 50 points", context=context, run_config=RunConfig(tracing_disabled=True), **options
        )
    )
    return result.final_output, model


def outputs(model: ScriptedModel) -> list[str]:
    """The tool outputs the model read in its last request."""
    return [
        item["output"]
        for item in model.inputs[-1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]


def test_runner_calls_the_tool_in_the_sandbox_and_the_session_keeps_its_state(runtime: Runtime) -> None:
    turns = [
        [tool_call("update_customer_loyalty_points", {"points_to_add": 50}, "call_1")],
        [message("Done.")],
    ]
    final, model = run(runtime, turns, {"session_id": "s1"})
    assert final == "Done."
    # what the model read back is the tool's output, run by toolpen
    assert '"loyalty_points": 50' in outputs(model)[0]
    assert runtime.store.require_session("s1").state["customer_profile"]["loyalty_points"] == 50
    # a second run in the same SDK context (session) accumulates; the tool definitions are the derived ones
    turns = [
        [tool_call("update_customer_loyalty_points", {"points_to_add": 5}, "call_2")],
        [message("Done.")],
    ]
    run(runtime, turns, {"session_id": "s1"})
    assert runtime.store.require_session("s1").state["customer_profile"]["loyalty_points"] == 55
    assert {tool.name for tool in model.tools} == {"update_customer_loyalty_points", "escape", "add_points"}


def test_a_sandbox_refusal_is_answered_to_the_model_not_raised(runtime: Runtime) -> None:
    final, model = run(runtime, [[tool_call("escape", {}, "call_x")], [message("I cannot.")]], "s2")
    assert outputs(model)[0].startswith(
        "tool_error: FileNotFoundError: [Errno 2] No such file or directory: '/etc/passwd'"
    )
    assert final == "I cannot."


def test_a_retried_tool_call_id_replays_instead_of_running_twice(runtime: Runtime) -> None:
    call = [tool_call("update_customer_loyalty_points", {"points_to_add": 50}, "call_same")]
    run(runtime, [call, [message("ok")]], {"session_id": "s3"})
    run(runtime, [call, [message("ok")]], {"session_id": "s3"})
    assert runtime.store.require_session("s3").state["customer_profile"]["loyalty_points"] == 50


def test_the_runners_session_is_the_toolpen_session_and_one_responses_calls_lose_no_update(
    runtime: Runtime,
) -> None:
    session = SQLiteSession("conversation-1")  # no run context: the SDK session names the toolpen one
    both = [
        tool_call("add_points", {"points": 1}, "call_0"),
        tool_call("add_points", {"points": 2}, "call_1"),
    ]
    run(runtime, [both, [message("ok")]], session=session)
    assert runtime.store.require_session("conversation-1").state["points"] == 3  # as the SDK's own tools
    # a later turn whose model repeats the id call_0 with other arguments runs as a new call
    _, model = run(
        runtime, [[tool_call("add_points", {"points": 100}, "call_0")], [message("ok")]], session=session
    )
    assert outputs(model)[-1] == '{"points": 103}'  # the history before it is the SDK session's
    assert runtime.store.require_session("conversation-1").state["points"] == 103
    # the run context still wins over the SDK session when it names one
    run(runtime, [[tool_call("add_points", {"points": 7}, "c7")], [message("ok")]], "other", session=session)
    assert runtime.store.require_session("other").state["points"] == 7


@pytest.mark.slow
def test_the_sample_host_runs() -> None:
    host = SAMPLES / "hosts" / "openai_agents_host.py"
    done = subprocess.run(
        [sys.executable, str(host)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "agent: Done." in done.stdout
    assert "loyalty_points': 75" in done.stdout
