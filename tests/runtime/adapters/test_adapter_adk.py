"""runtime.adapters.adk: ADK's own Runner and InMemorySessionService against a scripted model;
the tool runs sandboxed and its state change is persisted by ADK's session service."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import ToolContext
from google.genai import types

from runtime import Runtime
from runtime.adapters.adk import adk_tools
from samples.hosts.scripted.adk_llm import ScriptedLlm, text, tool_call
from tests.conftest import SAMPLES

LOYALTY = (SAMPLES / "update_customer_loyalty_points.py").read_text()
SEEN = '''
def seen() -> dict:
    """What the tool sees of ADK's session; drops the scratch key."""
    del context.state["scratch"]
    return {"session_id": context.session_id, "authors": [e["author"] for e in context.events],
            "user": context.user_content["parts"][0]["text"], "plan": context.state["user:plan"]}
'''


ADD_POINTS = '''
def add_points(points: int) -> dict:
    """Adds loyalty points."""
    context.state["points"] = context.state.get("points", 0) + points
    return {"points": context.state["points"]}
'''


def native_add_points(points: int, tool_context: ToolContext) -> dict:
    """Adds loyalty points (ADK's own FunctionTool, for comparison)."""
    tool_context.state["points"] = tool_context.state.get("points", 0) + points
    return {"points": tool_context.state["points"]}


@pytest.fixture(scope="module")
def runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://") as rt:
        rt.add_tool(LOYALTY)
        rt.add_tool(SEEN)
        rt.add_tool(ADD_POINTS)
        yield rt


async def turn(
    runtime: Runtime,
    service: InMemorySessionService,
    turns: list[types.Content],
    text_in: str,
    tools: list[Any] | None = None,
) -> list[Any]:
    agent = LlmAgent(name="loyalty_agent", model=ScriptedLlm(turns=turns), tools=tools or adk_tools(runtime))
    runner = Runner(agent=agent, app_name="shop", session_service=service)
    message = types.Content(role="user", parts=[types.Part(text=text_in)])
    return [event async for event in runner.run_async(user_id="u1", session_id="s1", new_message=message)]


def responses(events: list[Any]) -> list[dict[str, Any]]:
    return [
        part.function_response.response
        for event in events
        for part in (event.content.parts if event.content else [])
        if part.function_response
    ]


def test_adk_runner_runs_the_tool_sandboxed_and_its_session_service_keeps_the_state(runtime: Runtime) -> None:
    async def scenario() -> None:
        service = InMemorySessionService()
        await service.create_session(
            app_name="shop",
            user_id="u1",
            session_id="s1",
            state={"customer_profile": {"loyalty_points": 10, "plan": "Gold"}},
        )
        events = await turn(
            runtime,
            service,
            [tool_call("update_customer_loyalty_points", {"points_to_add": 50}, "c1"), text("Done.")],
            "Add 50",
        )
        assert responses(events)[0]["loyalty_points"] == 60
        stored = await service.get_session(app_name="shop", user_id="u1", session_id="s1")
        assert stored.state["customer_profile"]["loyalty_points"] == 60
        # the next turn starts from what ADK persisted
        await turn(
            runtime,
            service,
            [tool_call("update_customer_loyalty_points", {"points_to_add": 5}, "c2"), text("Done.")],
            "Add 5",
        )
        stored = await service.get_session(app_name="shop", user_id="u1", session_id="s1")
        assert stored.state["customer_profile"]["loyalty_points"] == 65
        # nothing of it went to a toolpen session: ADK owns the session
        assert runtime.store.get_session("s1") is None

    asyncio.run(scenario())


def test_the_tool_sees_adk_session_events_ids_and_scoped_state(runtime: Runtime) -> None:
    async def scenario() -> None:
        service = InMemorySessionService()
        await service.create_session(
            app_name="shop", user_id="u1", session_id="s1", state={"user:plan": "Gold", "scratch": 1}
        )
        events = await turn(runtime, service, [tool_call("seen", {}, "c1"), text("ok")], "what do you see?")
        seen = responses(events)[0]
        assert seen == {
            "session_id": "s1",
            "authors": ["user", "loyalty_agent"],
            "user": "what do you see?",
            "plan": "Gold",
        }
        stored = await service.get_session(app_name="shop", user_id="u1", session_id="s1")
        assert stored.state["scratch"] is None  # deleted in the tool: ADK's state has no deletion

    asyncio.run(scenario())


def test_a_failure_is_an_error_response_for_the_model(runtime: Runtime) -> None:
    async def scenario() -> None:
        service = InMemorySessionService()
        await service.create_session(app_name="shop", user_id="u1", session_id="s1")
        events = await turn(
            runtime,
            service,
            [tool_call("update_customer_loyalty_points", {"points_to_add": "many"}, "c1"), text("Sorry.")],
            "x",
        )
        assert responses(events)[0]["error"].startswith("invalid_arguments: ")

    asyncio.run(scenario())


def calls(name: str, *points: int) -> types.Content:
    """One model response calling ``name`` once per value, with ids c0, c1, ..."""
    parts = [
        types.Part(function_call=types.FunctionCall(name=name, args={"points": value}, id=f"c{index}"))
        for index, value in enumerate(points)
    ]
    return types.Content(role="model", parts=parts)


@pytest.mark.parametrize("name", ["add_points", "native_add_points"])
def test_calls_of_one_response_see_the_writes_before_them_as_adks_own_tools_do(
    runtime: Runtime, name: str
) -> None:
    async def scenario() -> dict[str, Any]:
        service = InMemorySessionService()
        await service.create_session(app_name="shop", user_id="u1", session_id="s1")
        tools = [native_add_points] if name == "native_add_points" else None
        events = await turn(runtime, service, [calls(name, 1, 2), text("ok")], "add", tools)
        # run at once, in either order: the second sees the first's write
        assert sorted(response["points"] for response in responses(events)) in ([1, 3], [2, 3])
        # a later invocation whose model repeats the id c0 with other arguments runs anew
        events = await turn(runtime, service, [calls(name, 100), text("ok")], "add", tools)
        assert responses(events) == [{"points": 103}]
        stored = await service.get_session(app_name="shop", user_id="u1", session_id="s1")
        return dict(stored.state)

    assert asyncio.run(scenario()) == {"points": 103}


@pytest.mark.slow
def test_the_sample_host_runs() -> None:
    host = SAMPLES / "hosts" / "adk_host.py"
    done = subprocess.run(
        [sys.executable, str(host)], capture_output=True, text=True, timeout=120, check=True
    )
    assert "agent: Done." in done.stdout
    assert "loyalty_points': 75" in done.stdout
