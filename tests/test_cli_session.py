"""`toolpen session list|show|delete` against a real SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runtime.cli import app
from runtime.session import StateDelta, call_events
from runtime.store import open_store


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path}/s.db"
    with open_store(url) as store:
        store.create_session("shop", "ana", "s-ana", {"cart": ["apple"], "user:name": "Ana"})
        store.create_session("shop", "bob", "s-bob")
        delta = StateDelta({"cart": ["apple", "pear"]})
        events = call_events(
            call_id="c1",
            tool="add",
            args={"item": "pear"},
            response={"result": 2},
            delta=delta,
            author="agent",
        )
        store.begin_call("s-ana", "c1", "add", {"item": "pear"})
        store.commit_call("s-ana", "c1", delta, events, {"output": 2})
    return url


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["session", *args])
    return result.exit_code, result.stdout, result.stderr


def test_list(store_url: str) -> None:
    code, out, _ = run("list", "--store", store_url)
    assert code == 0
    lines = [line for line in out.splitlines() if "s-" in line]
    assert len(lines) == 2 and "s-ana" in lines[0] and "2" in lines[0].split("s-ana")[1]
    code, out, _ = run("list", "--store", store_url, "--user", "bob")
    assert "s-bob" in out and "s-ana" not in out
    assert "no sessions" in run("list", "--store", store_url, "--app", "other")[1]


def test_show(store_url: str) -> None:
    code, out, _ = run("show", "s-ana", "--store", store_url)
    assert code == 0
    shown = json.loads(out)
    assert shown["state"] == {"cart": ["apple", "pear"], "user:name": "Ana"}
    assert [e["content"]["role"] for e in shown["events"]] == ["model", "user"]
    assert shown["events"][1]["actions"]["state_delta"] == {"set": {"cart": ["apple", "pear"]}, "deleted": []}
    code, _, err = run("show", "nope", "--store", store_url)
    assert code == 1 and "'nope' not found" in err


def test_delete(store_url: str) -> None:
    code, out, _ = run("delete", "s-bob", "--store", store_url)
    assert code == 0 and "deleted session s-bob" in out
    code, _, err = run("delete", "s-bob", "--store", store_url)
    assert code == 1 and "'s-bob' not found" in err
    assert "s-bob" not in run("list", "--store", store_url)[1]


def test_bad_store_url() -> None:
    code, _, err = run("list", "--store", "nosuch://x")
    assert code == 1 and "unknown store URL" in err
