"""runtime.adapters.openai_agents: the Agents SDK's own Runner against a scripted model, tools sandboxed."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import pytest
from agents import Agent, RunConfig, Runner

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


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://") as rt:
        rt.add_tool(LOYALTY)
        rt.add_tool(ESCAPE)
        yield rt


def run(runtime: Runtime, turns: list, context: object) -> tuple[str, ScriptedModel]:
    model = ScriptedModel(turns)
    agent = Agent(name="loyalty_agent", instructions="Help.", model=model, tools=function_tools(runtime))
    result = asyncio.run(
        Runner.run(agent, "Add 50 points", context=context, run_config=RunConfig(tracing_disabled=True))
    )
    return result.final_output, model


def test_runner_calls_the_tool_in_the_sandbox_and_the_session_keeps_its_state(runtime: Runtime) -> None:
    turns = [
        [tool_call("update_customer_loyalty_points", {"points_to_add": 50}, "call_1")],
        [message("Done.")],
    ]
    final, model = run(runtime, turns, {"session_id": "s1"})
    assert final == "Done."
    # what the model read back is the tool's output, run by toolpen
    outputs = [
        item
        for item in model.inputs[1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert '"loyalty_points": 50' in outputs[0]["output"]
    assert runtime.store.require_session("s1").state["customer_profile"]["loyalty_points"] == 50
    # a second run in the same SDK context (session) accumulates; the tool definitions are the derived ones
    turns = [
        [tool_call("update_customer_loyalty_points", {"points_to_add": 5}, "call_2")],
        [message("Done.")],
    ]
    run(runtime, turns, {"session_id": "s1"})
    assert runtime.store.require_session("s1").state["customer_profile"]["loyalty_points"] == 55
    assert {tool.name for tool in model.tools} == {"update_customer_loyalty_points", "escape"}


def test_a_sandbox_refusal_is_answered_to_the_model_not_raised(runtime: Runtime) -> None:
    final, model = run(runtime, [[tool_call("escape", {}, "call_x")], [message("I cannot.")]], "s2")
    outputs = [
        item
        for item in model.inputs[1]
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    assert outputs[0]["output"].startswith(
        "tool_error: FileNotFoundError: [Errno 2] No such file or directory: '/etc/passwd'"
    )
    assert final == "I cannot."


def test_a_retried_tool_call_id_replays_instead_of_running_twice(runtime: Runtime) -> None:
    call = [tool_call("update_customer_loyalty_points", {"points_to_add": 50}, "call_same")]
    run(runtime, [call, [message("ok")]], {"session_id": "s3"})
    run(runtime, [call, [message("ok")]], {"session_id": "s3"})
    assert runtime.store.require_session("s3").state["customer_profile"]["loyalty_points"] == 50


@pytest.mark.slow
def test_the_sample_host_runs() -> None:
    host = SAMPLES / "hosts" / "openai_agents_host.py"
    done = subprocess.run(
        [sys.executable, str(host)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "agent: Done." in done.stdout
    assert "loyalty_points': 75" in done.stdout
