"""drive_session when the event stream drops, the async twins, and a turn's results over 4 MiB:
the real `openai` clients (sync and async) against the scripted Agents API server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest
from openai import AsyncOpenAI, OpenAI

from runtime import Limits, Runtime
from runtime.protocols.agents import MAX_REQUEST_BYTES, adrive_session, drive_session, result_batches
from samples.hosts.servers.agents_api import AgentsApiServer, call
from sandbox.common.errors import StreamEnded

MiB = 1024 * 1024

BIG = '''
def big_report(size: int) -> str:
    """A report of `size` characters.

    Args:
        size: How many.
    """
    return "x" * size
'''

WEATHER_SCRIPT = [
    [call("big_report", size=10), call("big_report", size=20)],
    lambda results: " ".join(str(len(r["output"])) for r in results),
]


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=2) as runtime:
        runtime.add_tool(BIG, limits=Limits(result_size=8 * MiB))
        yield runtime


@pytest.fixture
def server() -> Iterator[AgentsApiServer]:
    with AgentsApiServer() as api:
        yield api


def client_for(server: AgentsApiServer) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=30)


def test_a_stream_dropped_before_the_actions_arrive_is_resumed(rt: Runtime, server: AgentsApiServer) -> None:
    server.add_session("sess_drop", WEATHER_SCRIPT)
    server.streams_to_drop = 2
    session = drive_session(client_for(server), "sess_drop", rt, input="go")
    assert session.status == "idle"
    assert server.sessions["sess_drop"].messages == ["10 20"]
    assert server.streams_opened >= 2


def test_a_stream_that_keeps_ending_raises(rt: Runtime, server: AgentsApiServer) -> None:
    stuck = server.add_session("sess_stuck", [])
    stuck.status = "in_progress"  # and never an event again
    server.streams_to_drop = 100
    with pytest.raises(StreamEnded, match="in_progress"):
        drive_session(client_for(server), "sess_stuck", rt, reconnects=2)
    assert server.streams_opened == 3


def test_results_of_one_turn_over_4_mib_go_in_several_requests(rt: Runtime, server: AgentsApiServer) -> None:
    size = int(1.5 * MiB)
    server.add_session(
        "sess_big",
        [[call("big_report", size=size) for _ in range(4)], lambda results: str(len(results))],
    )
    session = drive_session(client_for(server), "sess_big", rt, input="go")
    assert session.status == "idle" and server.sessions["sess_big"].messages == ["4"]
    posts = [p for p in server.posts if p.events[0]["type"] == "agent.session.input.tool_result"]
    assert len(posts) >= 2
    assert len({p.idempotency_key for p in posts}) == len(posts)
    assert [e["call_id"] for p in posts for e in p.events] == ["call_1", "call_2", "call_3", "call_4"]


def test_batches_stay_within_the_request_limit() -> None:
    events = [{"type": "t", "output": "x" * (MiB + i)} for i in range(9)]
    batches = result_batches(events)
    assert [e for batch in batches for e in batch] == events
    assert all(len(json.dumps({"events": batch}).encode()) <= MAX_REQUEST_BYTES for batch in batches)
    assert result_batches([]) == []


def test_adrive_session_with_the_async_client_resumes_too(rt: Runtime, server: AgentsApiServer) -> None:
    server.add_session("sess_async", WEATHER_SCRIPT)
    server.streams_to_drop = 1

    async def scenario() -> str:
        client = AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=30)
        async with client:
            session = await adrive_session(client, "sess_async", rt, input="go")
        return str(session.status)

    assert asyncio.run(scenario()) == "idle"
    assert server.sessions["sess_async"].messages == ["10 20"]
