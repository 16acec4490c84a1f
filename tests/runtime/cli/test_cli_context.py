"""`toolpen run --context` through the real CLI: nothing given is ignored, or the run says why not."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SEEN = '''
def seen(points: int = 0) -> dict:
    """What the tool sees of its context; adds points to the state."""
    context.state["points"] = context.state.get("points", 0) + points
    return {
        "session_id": context.session_id,
        "invocation_id": context.invocation_id,
        "authors": [event["author"] for event in context.events],
        "texts": [
            part.get("text") for event in context.events for part in (event.get("content") or {}).get("parts", [])
        ],
        "state": dict(context.state),
    }
'''

EVENTS = [
    {"author": "user", "content": {"role": "user", "parts": [{"text": "hello"}]}},
    {"author": "agent", "content": {"role": "model", "parts": [{"text": "hi, how can I help?"}]}},
]


@pytest.fixture
def tool(tmp_path: Path) -> Path:
    path = tmp_path / "seen.py"
    path.write_text(SEEN)
    return path


def run(tool: Path, *args: str, context: dict[str, Any] | None = None) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-c",
        "from runtime._cli import main; main()",
        "run",
        str(tool),
        "--json",
        *args,
    ]
    if context is not None:
        command += ["--context", json.dumps(context)]
    return subprocess.run(command, capture_output=True, text=True, cwd=tool.parent, timeout=120)


def output(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)["output"]


def session(tool: Path, session_id: str) -> dict[str, Any]:
    command = [sys.executable, "-c", "from runtime._cli import main; main()", "session", "show", session_id]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tool.parent, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_context_state_is_applied_over_the_stored_state_and_recorded(tool: Path) -> None:
    assert output(run(tool, "--args", '{"points": 5}'))["state"] == {"points": 5}
    assert output(run(tool, "--args", '{"points": 5}'))["state"] == {"points": 10}
    # the user edits the fixture: the stored 10 gives way to the given 100 for this call
    assert output(run(tool, "--args", '{"points": 5}', context={"state": {"points": 100}}))["state"] == {
        "points": 105
    }
    events = session(tool, "local")["events"]
    recorded = [e for e in events if e["author"] == "user" and e["actions"]["state_delta"]["set"]]
    assert [e["actions"]["state_delta"] for e in recorded] == [{"set": {"points": 100}, "deleted": []}]
    # the same state again is no change: nothing more is recorded, and the points count on
    assert output(run(tool, "--args", '{"points": 1}'))["state"] == {"points": 106}


@pytest.mark.slow
def test_session_id_events_and_invocation_id_are_what_the_tool_sees(tool: Path) -> None:
    context = {"session_id": "s1", "invocation_id": "inv-7", "events": EVENTS}
    seen = output(run(tool, context=context))
    assert seen["session_id"] == "s1" and seen["invocation_id"] == "inv-7"
    assert seen["authors"] == ["user", "agent"]
    assert seen["texts"] == ["hello", "hi, how can I help?"]
    # again: the stored history begins with the given events, so the run goes on, seeing it all
    again = output(run(tool, context=context))
    assert again["authors"][:2] == ["user", "agent"] and len(again["authors"]) > 2
    assert session(tool, "s1")["id"] == "s1"


@pytest.mark.slow
def test_events_that_contradict_the_stored_session_are_refused_until_fresh(tool: Path) -> None:
    output(run(tool, "--session", "s2", context={"events": EVENTS}))
    other = [{"author": "user", "content": {"role": "user", "parts": [{"text": "something else"}]}}]
    refused = run(tool, "--session", "s2", context={"events": other})
    assert refused.returncode == 2
    error = json.loads(refused.stdout)["error"]
    assert error["kind"] == "invalid_arguments"
    assert "do not begin with the 1 event(s) of --context" in error["message"]
    assert "--fresh" in error["message"]
    fresh = output(run(tool, "--session", "s2", "--fresh", context={"events": other}))
    assert fresh["texts"] == ["something else"]


def test_session_and_context_session_id_must_agree(tool: Path) -> None:
    done = run(tool, "--session", "a", context={"session_id": "b"})
    assert done.returncode == 2
    assert "--context names session 'b' but --session is 'a'" in json.loads(done.stdout)["error"]["message"]


def test_malformed_events_are_refused(tool: Path) -> None:
    done = run(tool, context={"events": [{"content": "no author"}]})
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["message"].startswith("--context: events[0] is not an event")


@pytest.mark.slow
def test_fresh_starts_the_session_anew(tool: Path) -> None:
    output(run(tool, "--args", '{"points": 3}'))
    assert output(run(tool, "--fresh", "--args", '{"points": 1}'))["state"] == {"points": 1}


def test_store_and_session_are_named_once_on_stderr(tool: Path) -> None:
    done = run(tool, "--store", "memory://", context={"session_id": "s9"})
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("session 's9' in memory://") == 1
