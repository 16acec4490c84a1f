"""Execution as CES configures it, in real workers: ASYNCHRONOUS tools, the app's toolExecutionMode
(PARALLEL and SEQUENTIAL) and the tools' timeouts (30 s and 60 s by default), through the API, an
app in the export layout and `toolpen app turn`.

The slow tool asks a real HTTP server on 127.0.0.1 that holds each request for a while and records
how many it holds at once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime import EgressPolicy, Runtime
from runtime._calls import ToolCall
from runtime.app import app_runtime, load_app
from sandbox.common.errors import InvalidApp, InvalidArguments
from tests.httpd import Handler, LocalServer, serve

HOLD = 0.6

MARK = '''
def mark(key: str, value: str) -> dict:
    """Sets one key and reports the state it found."""
    seen = dict(context.state)
    context.state[key] = value
    return seen
'''


class Gauge:
    """How many requests the server holds now, the most it held at once, and how many it answered.

    Each request is held for ``HOLD`` seconds once ``gate`` is open (it is, unless a test closes it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.answered = 0
        self.gate = threading.Event()
        self.gate.set()

    def hold(self, handler: Handler) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        self.gate.wait(30)
        time.sleep(HOLD)
        with self.lock:
            self.now -= 1
            self.answered += 1
        handler.send_json(200, {"held": True})


@pytest.fixture
def gauge() -> Gauge:
    return Gauge()


@pytest.fixture
def server(gauge: Gauge) -> Iterator[LocalServer]:
    with serve({"/slow": gauge.hold}) as running:
        yield running


def slow_tool(name: str, server: LocalServer) -> str:
    return f'''
def {name}(key: str) -> dict:
    """Asks the slow service, then sets one key."""
    answer = ces_requests.get("{server.url}/slow").json()
    context.state[key] = "{name}"
    return answer
'''


@pytest.fixture(params=["all", "process"])
def rt(request: pytest.FixtureRequest, server: LocalServer) -> Iterator[Runtime]:
    with Runtime(
        egress=EgressPolicy(allow_hosts=[server.allow]), walls=request.param, pool_size=3
    ) as runtime:
        runtime.add_tool(MARK)
        runtime.add_tool(slow_tool("slow", server))
        runtime.add_tool(slow_tool("background", server), execution_type="ASYNCHRONOUS")
        yield runtime


def test_parallel_calls_run_at_once_from_the_same_state(rt: Runtime, gauge: Gauge) -> None:
    calls = [ToolCall("slow", {"key": "a"}), ToolCall("slow", {"key": "b"})]
    results = rt.call_many(calls, mode="PARALLEL", session_id="s")
    assert all(result.success for result in results), [result.error for result in results]
    assert gauge.most == 2  # the service held both requests at once
    assert rt.store.require_session("s").state == {"a": "slow", "b": "slow"}


def test_parallel_calls_share_one_context_and_commit_in_order(rt: Runtime) -> None:
    rt.store.get_or_create_session("toolpen", "user", "s", {"x": "0"})
    calls = [
        ToolCall("mark", {"key": "x", "value": "first"}),
        ToolCall("mark", {"key": "x", "value": "second"}),
    ]
    first, second = rt.call_many(calls, mode="PARALLEL", session_id="s")
    assert first.output == {"x": "0"} and second.output == {"x": "0"}  # neither saw the other
    assert first.state == {"x": "first"} and second.state == {"x": "second"}
    assert first.call_id != second.call_id
    assert rt.store.require_session("s").state == {"x": "second"}  # last in the model's order wins
    responses = [
        event.content.parts[0].function_response
        for event in rt.store.get_events("s")
        if event.content and event.content.parts and event.content.parts[0].function_response
    ]
    assert [response.id for response in responses] == [first.call_id, second.call_id]


def test_sequential_calls_see_the_previous_ones_changes(rt: Runtime, gauge: Gauge) -> None:
    calls = [ToolCall("mark", {"key": "x", "value": "1"}), ToolCall("mark", {"key": "y", "value": "2"})]
    first, second = rt.call_many(calls, mode="SEQUENTIAL", session_id="s")
    assert first.output == {} and second.output == {"x": "1"}
    rt.call_many([ToolCall("slow", {"key": "a"}), ToolCall("slow", {"key": "b"})], mode="SEQUENTIAL")
    assert gauge.most == 1


def test_an_asynchronous_tool_answers_pending_and_the_session_goes_on(rt: Runtime, gauge: Gauge) -> None:
    gauge.gate.clear()  # the service holds the background tool's request until the test opens it
    calls = [ToolCall("background", {"key": "late"}), ToolCall("mark", {"key": "now", "value": "1"})]
    pending, marked = rt.run_turn(calls, mode="PARALLEL", session_id="s")
    assert gauge.answered == 0  # the turn did not wait for the background tool
    assert pending.result.output == {"status": "pending"} and pending.later is not None
    assert marked.later is None and marked.result.success
    assert rt.store.require_session("s").state == {"now": "1"}  # committed while the tool runs
    gauge.gate.set()
    final = pending.later.result(timeout=30)
    assert final.success, final.error
    assert final.output == {"held": True} and final.call_id == pending.result.call_id
    assert rt.store.require_session("s").state == {"now": "1", "late": "background"}


def test_call_many_waits_for_an_asynchronous_tool_as_call_does(rt: Runtime, gauge: Gauge) -> None:
    calls = [ToolCall("background", {"key": "late"}), ToolCall("mark", {"key": "now", "value": "1"})]
    waited, marked = rt.call_many(calls, mode="PARALLEL", session_id="s")
    assert gauge.answered == 1 and waited.output == {"held": True} and marked.success
    assert rt.store.require_session("s").state == {"now": "1", "late": "background"}


def test_a_started_call_commits_onto_the_state_the_session_has_then(rt: Runtime, gauge: Gauge) -> None:
    gauge.gate.clear()
    later = rt.start("background", {"key": "k"}, session_id="s")
    rt.call("mark", {"key": "k", "value": "meanwhile"}, session_id="s")
    rt.call("mark", {"key": "other", "value": "kept"}, session_id="s")
    assert rt.store.require_session("s").state == {"k": "meanwhile", "other": "kept"}
    gauge.gate.set()
    result = later.result(timeout=30)
    assert result.success, result.error
    assert rt.store.require_session("s").state == {"k": "background", "other": "kept"}
    assert result.state == {"k": "background", "other": "kept"}


def write_app(folder: Path, *, mode: str, tools: dict[str, dict[str, object]]) -> Path:
    """An app in the export layout: one agent using ``tools`` ({name: {"code", **tool file members}})."""
    root = folder / "Timing_App"
    (root / "agents" / "Desk").mkdir(parents=True)
    (root / "app.json").write_text(
        json.dumps({"displayName": "Timing App", "rootAgent": "Desk", "toolExecutionMode": mode})
    )
    (root / "agents" / "Desk" / "Desk.json").write_text(
        json.dumps({"displayName": "Desk", "tools": list(tools)})
    )
    for name, members in tools.items():
        code = root / "tools" / name / "python_function" / "python_code.py"
        code.parent.mkdir(parents=True)
        code.write_text(str(members.pop("code")))
        resource = {
            "displayName": name,
            "pythonFunction": {"name": name, "pythonCode": f"tools/{name}/python_function/python_code.py"},
            **members,
        }
        (root / "tools" / name / f"{name}.json").write_text(json.dumps(resource))
    return root


NAP = '''
def {name}(seconds: float) -> str:
    """Sleeps."""
    time.sleep(seconds)
    return "awake"
'''


def nap(name: str) -> str:
    return "import time\n" + NAP.format(name=name)


def test_app_tools_get_ces_timeouts(tmp_path: Path) -> None:
    root = write_app(
        tmp_path,
        mode="PARALLEL",
        tools={
            "plain": {"code": nap("plain")},
            "later": {"code": nap("later"), "executionType": "ASYNCHRONOUS"},
            "brief": {"code": nap("brief"), "timeout": "1s"},
        },
    )
    with app_runtime(load_app(root)) as rt:
        assert rt.tool_execution_mode == "PARALLEL"  # the app's; a plain Runtime's is SEQUENTIAL
        timeouts = {
            name: rt.executor.limits_for(rt.get_tool(name)).wall_time for name in ("plain", "later", "brief")
        }
        assert timeouts == {"plain": 30.0, "later": 60.0, "brief": 1.0}
        assert rt.get_tool("later").options.execution_type == "ASYNCHRONOUS"
        assert rt.call("plain", {"seconds": 0.1}).output == "awake"
        cut = rt.call("brief", {"seconds": 5})
        assert cut.error is not None and cut.error.kind == "timeout"
        assert "wall time of 1 s" in cut.error.message


def test_a_malformed_timeout_names_the_file(tmp_path: Path) -> None:
    root = write_app(tmp_path, mode="PARALLEL", tools={"plain": {"code": nap("plain"), "timeout": "soon"}})
    with pytest.raises(InvalidApp, match=r"tools/plain/plain.json: timeout: .*'soon'"):
        load_app(root)


def test_runtime_timeouts_are_checked() -> None:
    with Runtime() as rt:
        assert rt.tool_execution_mode == "SEQUENTIAL"
        with pytest.raises(InvalidArguments, match="positive number of seconds"):
            rt.add_tool(nap("plain"), timeout=0)


def marks(*pairs: tuple[str, str]) -> list[tuple[str, dict[str, str]]]:
    return [(f"c{index}", {"key": key, "value": value}) for index, (key, value) in enumerate(pairs)]


@pytest.mark.parametrize(("mode", "seen_by_second"), [("SEQUENTIAL", {"x": "1"}), ("PARALLEL", {})])
def test_the_protocol_adapters_run_a_responses_calls_by_the_runtimes_mode(
    mode: str, seen_by_second: dict[str, str]
) -> None:
    from runtime.protocols import handle_required_actions, handle_tool_calls

    calls = marks(("x", "1"), ("y", "2"))
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": "mark", "arguments": json.dumps(args)}}
            for call_id, args in calls
        ],
    }
    session = {
        "id": "agents-session",
        "required_actions": [
            {"type": "function_call", "turn_id": "t1", "call_id": call_id, "name": "mark", "arguments": args}
            for call_id, args in calls
        ],
    }
    with Runtime(tool_execution_mode=mode) as rt:  # type: ignore[arg-type]
        rt.add_tool(MARK)
        replies = handle_tool_calls(message, rt, session_id="chat")
        assert [reply["tool_call_id"] for reply in replies] == ["c0", "c1"]
        assert json.loads(replies[1]["content"]) == seen_by_second
        events = handle_required_actions(session, rt)
        assert [event["call_id"] for event in events] == ["c0", "c1"]
        assert json.loads(events[1]["output"]) == seen_by_second
        for session_id in ("chat", "agents-session"):
            assert rt.store.require_session(session_id).state == {"x": "1", "y": "2"}


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["PARALLEL", "SEQUENTIAL"])
def test_app_turn_runs_by_the_apps_tool_execution_mode(
    tmp_path: Path, server: LocalServer, mode: str
) -> None:
    root = write_app(
        tmp_path,
        mode=mode,
        tools={
            "mark": {"code": MARK},
            "background": {"code": slow_tool("background", server), "executionType": "ASYNCHRONOUS"},
        },
    )
    script = {
        "session": "t",
        "context": {"state": {"x": "0"}},
        "calls": [
            [
                {"tool": "background", "args": {"key": "late"}},
                {"tool": "mark", "args": {"key": "x", "value": "1"}},
                {"tool": "mark", "args": {"key": "y", "value": "2"}},
            ],
        ],
    }
    (tmp_path / "turn.json").write_text(json.dumps(script))
    command = [
        sys.executable,
        "-c",
        "from runtime._cli import main; main()",
        "app",
        "turn",
        str(root),
        "turn.json",
        "--store",
        "memory://",
        "--allow-host",
        server.allow,
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["success"], done.stdout + done.stderr
    names = [call["name"] for call in report["calls"]]
    assert names == ["background (started)", "mark", "mark", "background (result)"]
    outputs = [call["output"] for call in report["calls"]]
    assert outputs[0] == {"status": "pending"} and outputs[3] == {"held": True}
    seen_by_second = outputs[2]
    assert seen_by_second == ({"x": "0"} if mode == "PARALLEL" else {"x": "1"})
    assert report["state"] == {"x": "1", "y": "2", "late": "background"}
