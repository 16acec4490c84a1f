"""`toolpen session list|show|delete` against a real SQLite store; store passwords never printed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runtime._cli import load_commands
from runtime._session import call_events
from runtime._state import StateDelta
from runtime.store import open_store
from tests.conftest import ROOT, service_params
from tests.runtime.store.test_store import POSTGRES_URLS, fresh_postgres


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


TOOLPEN = [sys.executable, "-c", "from runtime._cli import main; main()"]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(load_commands(), ["session", *args])
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


def toolpen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TOOLPEN, *args], capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.mark.parametrize("command", [["session", "list"], ["serve", "--port", "0"]])
def test_store_passwords_never_printed_for_a_mistyped_url(command: list[str]) -> None:
    done = toolpen(*command, "--store", "postgres://alice:S3cretPw@db.invalid:5432/toolpen")
    assert done.returncode != 0
    assert "S3cretPw" not in done.stdout + done.stderr
    assert "unknown store URL" in done.stderr


@pytest.mark.parametrize("url", service_params(POSTGRES_URLS))
def test_store_passwords_never_printed_by_session_commands(url: str) -> None:
    for fresh in fresh_postgres(url):
        password = fresh.split("@", 1)[0].rsplit(":", 1)[1]
        listed = toolpen("session", "list", "--store", fresh)
        deleted = toolpen("session", "delete", "nope", "--store", fresh)
        assert listed.returncode == 0 and deleted.returncode == 1, listed.stderr + deleted.stderr
        for done in (listed, deleted):
            assert f":{password}@" not in done.stdout + done.stderr
        assert "no sessions in postgresql://" in listed.stdout


def test_prune_without_an_idle_time_is_unusable_arguments(store_url: str) -> None:
    code, _, err = run("prune", "--store", store_url)
    assert code == 2 and "give an idle time" in err
    assert "s-bob" in run("list", "--store", store_url)[1]


def test_sizes_read_in_powers_of_1024() -> None:
    from runtime._cli.session import _human

    assert [_human(size) for size in (0, 1023, 1536, 5 << 20, 3 << 30)] == [
        "0 B",
        "1023 B",
        "1.5 kB",
        "5.0 MB",
        "3.0 GB",
    ]
