"""Agents API sessions: the real `openai` SDK against a local server speaking the sessions API."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from runtime import Limits, Runtime
from runtime.protocols.agents import (
    RESULT_LIMIT,
    agent_tools,
    drive_session,
    handle_required_actions,
    send_results,
    tool_search,
    toolpen_call_id,
)
from runtime.store import open_store
from samples.hosts.servers.agents_api import AgentsApiServer, call
from tests.conftest import COUNTER, NOTE_LATER
from tests.runtime.schema.test_formats import SEED_GET_CUSTOMER

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
MiB = 1024 * 1024

BIG = '''
def big_report(size: int) -> str:
    """A report of `size` characters."""
    return "x" * size
'''

PARTS = '''
def chart(title: str) -> list:
    """A chart as content parts."""
    return [{"type": "input_text", "text": title}, {"type": "input_image", "image_url": "https://example.com/c.png"}]
'''

CHARGE = '''
def charge_card(amount_cents: int) -> str:
    """Charge the customer's card; spins long enough to be killed mid-run."""
    n = 0
    while True:
        n += 1
'''

CRASHING_HOST = """
import json, os, sys
from openai import OpenAI
from runtime import Limits, Runtime
from runtime.protocols.agents import handle_required_actions

base_url, store, session_id, source = sys.argv[1:5]
client = OpenAI(base_url=base_url, api_key="test", max_retries=0)
with Runtime(store=store, pool_size=1) as rt:
    rt.add_tool(open(source).read(), limits=Limits(cpu_time=2, wall_time=60))
    session = client.beta.agents.sessions.retrieve(session_id)
    events = handle_required_actions(session, rt)
    print(json.dumps(events), flush=True)
    os._exit(17)  # the crash: the results are stored, never sent
"""


def sample(name: str) -> str:
    return (SAMPLES / f"{name}.py").read_text()


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(sample("get_customer"), read_only=True)
        runtime.add_tool(sample("get_current_weather"))
        runtime.add_tool(sample("update_customer_loyalty_points"), defer_loading=True)
        runtime.add_tool(BIG, limits=Limits(result_size=8 * MiB))
        runtime.add_tool(PARTS)
        runtime.add_tool(COUNTER)
        yield runtime


@pytest.fixture
def server() -> Iterator[AgentsApiServer]:
    with AgentsApiServer() as api:
        yield api


def client_for(server: AgentsApiServer) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=30)


def start_turn(server: AgentsApiServer, session_id: str, script: list[Any]) -> OpenAI:
    """A session whose first turn is already waiting on the scripted calls."""
    server.add_session(session_id, script)
    client = client_for(server)
    client.beta.agents.sessions.events.create(
        session_id,
        events=[
            {
                "type": "agent.session.input.message",
                "input": [{"role": "user", "content": [{"type": "input_text", "text": "go"}]}],
            }
        ],
    )
    return client


def test_agent_tools_mark_deferred_tools_and_add_tool_search(rt: Runtime) -> None:
    tools = {tool.get("name", tool["type"]): tool for tool in agent_tools(rt)}
    assert tools["get_customer"] == SEED_GET_CUSTOMER
    assert tools["update_customer_loyalty_points"]["defer_loading"] is True
    assert "defer_loading" not in tools["get_current_weather"]
    assert tools["tool_search"] == {"type": "tool_search"}
    assert [d["name"] for d in tool_search(rt, "loyalty points")] == ["update_customer_loyalty_points"]


def test_session_round_trip_with_the_sdk(rt: Runtime, server: AgentsApiServer) -> None:
    server.add_session(
        "sess_weather",
        [
            [
                call("get_current_weather", location="Boston, MA"),
                call("get_current_weather", location="New Delhi, India"),
            ],
            lambda results: " / ".join(r["output"] for r in results),
        ],
    )
    session = drive_session(client_for(server), "sess_weather", rt, input="Boston or New Delhi?")
    assert session.status == "idle"
    results = server.tool_results("sess_weather")
    assert [(r["turn_id"], r["call_id"], r["success"]) for r in results] == [
        ("turn_1", "call_1", True),
        ("turn_1", "call_2", True),
    ]
    assert server.sessions["sess_weather"].messages == [
        "The temperature in Boston, MA is 75 degrees Fahrenheit. / "
        "The temperature in New Delhi, India is 50 degrees Fahrenheit."
    ]
    sent = [post for post in server.posts if post.events[0]["type"] == "agent.session.input.tool_result"]
    assert len(sent) == 1 and sent[0].idempotency_key and sent[0].beta == "agents=v1"


def test_an_asynchronous_tool_answers_pending_and_its_result_comes_when_the_session_is_idle(
    server: AgentsApiServer,
) -> None:
    server.add_session("sess_async", [[call("note_later", text="hi")], "I will tell you.", "It is noted."])
    with Runtime(store="memory://", pool_size=1) as rt:
        rt.add_tool(NOTE_LATER, execution_type="ASYNCHRONOUS")
        session = drive_session(client_for(server), "sess_async", rt, input="note hi")
        assert session.status == "idle"
        assert rt.store.require_session("sess_async").state == {"note": "hi"}
    (result,) = server.tool_results("sess_async")
    assert result["success"] is True and json.loads(result["output"]) == {"status": "pending"}
    assert server.sessions["sess_async"].messages == ["I will tell you.", "It is noted."]
    messages = [e for post in server.posts for e in post.events if e["type"] == "agent.session.input.message"]
    later = messages[-1]["input"][0]["content"][0]["text"]
    assert "note_later (call call_1)" in later and later.endswith(": noted hi")


def test_json_output_is_a_string_and_failures_are_actionable(rt: Runtime, server: AgentsApiServer) -> None:
    client = start_turn(
        server,
        "sess_mixed",
        [[call("get_customer", customer_id="123"), call("no_such_tool"), call("get_customer", id=1)], "ok"],
    )
    events = handle_required_actions(client.beta.agents.sessions.retrieve("sess_mixed"), rt)
    customer, unknown, bad_args = events
    assert customer["success"] is True and json.loads(customer["output"])["name"] == "Ana Souza"
    assert unknown == {
        "type": "agent.session.input.tool_result",
        "turn_id": "turn_1",
        "call_id": "call_2",
        "success": False,
        "error": unknown["error"],
    }
    assert "no_such_tool" in unknown["error"]
    assert bad_args["success"] is False and bad_args["error"].startswith("invalid_arguments")
    send_results(client, "sess_mixed", events)
    assert server.sessions["sess_mixed"].status == "idle"


def test_content_parts_pass_through(rt: Runtime) -> None:
    session = {
        "id": "sess_parts",
        "required_actions": [
            {
                "type": "function_call",
                "turn_id": "t",
                "call_id": "c",
                "name": "chart",
                "arguments": {"title": "Sales"},
            }
        ],
    }
    [event] = handle_required_actions(session, rt)
    assert event["output"] == [
        {"type": "input_text", "text": "Sales"},
        {"type": "input_image", "image_url": "https://example.com/c.png"},
    ]


@pytest.mark.parametrize(
    ("size", "fits"), [(RESULT_LIMIT, True), (RESULT_LIMIT + 1, False), (4_194_304, False)]
)
def test_results_over_the_limit_become_errors(rt: Runtime, size: int, fits: bool) -> None:
    session = {
        "id": f"sess_big_{size}",
        "required_actions": [
            {
                "type": "function_call",
                "turn_id": "t",
                "call_id": "c",
                "name": "big_report",
                "arguments": {"size": size},
            }
        ],
    }
    [event] = handle_required_actions(session, rt)
    assert event["success"] is fits
    if not fits:
        assert f"{size:,} bytes" in event["error"] and "4,194,304" in event["error"]


@pytest.mark.slow
def test_stored_results_are_resent_after_a_crash_between_run_and_send(
    server: AgentsApiServer, tmp_path: Path
) -> None:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    source = SAMPLES / "update_customer_loyalty_points.py"
    start_turn(server, "sess_crash", [[call("update_customer_loyalty_points", points_to_add=10)], "added"])
    host = subprocess.run(
        [sys.executable, "-c", CRASHING_HOST, server.base_url, store, "sess_crash", str(source)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert host.returncode == 17, host.stderr
    [lost] = json.loads(host.stdout)
    assert json.loads(lost["output"])["loyalty_points"] == 10
    assert server.tool_results("sess_crash") == []  # nothing was sent

    with Runtime(store=store, pool_size=1) as restarted:
        restarted.add_tool(source.read_text())
        session = drive_session(client_for(server), "sess_crash", restarted)
        state = restarted.store.require_session("sess_crash").state
    assert session.status == "idle"
    assert server.tool_results("sess_crash") == [lost]  # the stored result, sent once
    assert state["customer_profile"]["loyalty_points"] == 10  # the tool ran once


def test_a_run_killed_midway_is_an_unknown_outcome(server: AgentsApiServer, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    source = tmp_path / "charge_card.py"
    source.write_text(CHARGE)
    start_turn(server, "sess_killed", [[call("charge_card", amount_cents=500)], "charged?"])
    host = subprocess.Popen(
        [sys.executable, "-c", CRASHING_HOST, server.base_url, store, "sess_killed", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        with open_store(store) as watcher:
            deadline = time.monotonic() + 30
            while watcher.get_call("sess_killed", toolpen_call_id("turn_1", "call_1")) is None:
                assert time.monotonic() < deadline and host.poll() is None, host.stderr and host.stderr.read()
                time.sleep(0.05)
    finally:
        host.kill()
        host.wait()

    with Runtime(store=store, pool_size=1) as restarted:
        restarted.add_tool(CHARGE)
        started = time.monotonic()
        drive_session(client_for(server), "sess_killed", restarted)
        assert time.monotonic() - started < 2  # not run again (it would spin for its 2 s of CPU)
    [result] = server.tool_results("sess_killed")
    assert result["success"] is False and result["error"].startswith("unknown_outcome")


def test_an_idempotent_tool_runs_again_after_an_unfinished_run(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'sessions.db'}"
    action = {
        "type": "function_call",
        "turn_id": "t1",
        "call_id": "c1",
        "name": "get_customer",
        "arguments": {"customer_id": "123"},
    }
    with Runtime(store=store, pool_size=1) as runtime:
        runtime.add_tool(sample("get_customer"), idempotent=True)
        runtime.store.get_or_create_session("toolpen", "user", "sess_idem")
        runtime.store.begin_call(
            "sess_idem", toolpen_call_id("t1", "c1"), "get_customer", {"customer_id": "123"}
        )
        [event] = handle_required_actions({"id": "sess_idem", "required_actions": [action]}, runtime)
    assert event["success"] is True and json.loads(event["output"])["customer_id"] == "123"


def test_a_resent_batch_is_applied_once(rt: Runtime, server: AgentsApiServer) -> None:
    client = start_turn(server, "sess_twice", [[call("get_customer", customer_id="123")], "done"])
    events = handle_required_actions(client.beta.agents.sessions.retrieve("sess_twice"), rt)
    send_results(client, "sess_twice", events)
    again = handle_required_actions(
        {
            "id": "sess_twice",
            "required_actions": [
                {
                    "type": "function_call",
                    "turn_id": "turn_1",
                    "call_id": "call_1",
                    "name": "get_customer",
                    "arguments": {"customer_id": "123"},
                }
            ],
        },
        rt,
    )
    assert again == events  # replayed from the store
    send_results(client, "sess_twice", again)
    posts = [post for post in server.posts if post.session_id == "sess_twice" and post.idempotency_key]
    assert [post.duplicate for post in posts] == [False, True]
    assert len(server.tool_results("sess_twice")) == 1


# -- hostile ids in required actions -----------------------------------------------------------


def _action(turn_id: Any, call_id: Any, n: int = 1) -> dict[str, Any]:
    return {
        "type": "function_call",
        "turn_id": turn_id,
        "call_id": call_id,
        "name": "bump",
        "arguments": {"n": n},
    }


def test_agents_turn_and_call_ids_cannot_collide_in_the_stored_key(rt: Runtime) -> None:
    session = {"id": "agents-collide", "required_actions": [_action("t:1", "c", 1), _action("t", "1:c", 10)]}
    first, second = handle_required_actions(session, rt)
    assert first["output"] == "1" and second["output"] == "11", (first, second)
    # Ordinary ids keep their stored key: a second handling replays both.
    plain = {"id": "agents-collide", "required_actions": [_action("turn_1", "call_1", 100)]}
    assert handle_required_actions(plain, rt)[0]["output"] == "111"
    assert handle_required_actions(plain, rt)[0]["output"] == "111"


@pytest.mark.parametrize(
    "session",
    [
        {"required_actions": [_action("t", "c")]},
        {"id": "agents-types", "required_actions": [_action(None, "c")]},
        {"id": "agents-types", "required_actions": [_action("t", 7)]},
        {"id": "agents-types", "required_actions": [_action("t", "")]},
    ],
)
def test_agents_actions_without_usable_ids_run_nothing(rt: Runtime, session: dict[str, Any]) -> None:
    [event] = handle_required_actions(session, rt)
    assert event["success"] is False and event["error"].startswith("invalid_arguments:"), event
    assert rt.store.get_session("None") is None


@pytest.mark.slow
def test_the_agents_host_sample_runs() -> None:
    host = SAMPLES / "hosts" / "agents_host.py"
    done = subprocess.run(
        [sys.executable, str(host), "--store", "memory://"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "status: idle" in done.stdout
    assert '"loyalty_points": 100' in done.stdout.splitlines()[-1]
