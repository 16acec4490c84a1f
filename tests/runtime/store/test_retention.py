"""Retention on every store: idle sessions expire (``?idle_timeout=``), ``prune`` and
`toolpen session prune` delete them, and `toolpen session list` reports the store's size."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from runtime._session import call_events
from runtime._state import StateDelta
from runtime.store import Store, open_store
from runtime.store._retention import parse_duration, split_idle_timeout
from sandbox.common.errors import InvalidArguments
from tests.runtime.store.test_store import REDIS_URLS, STORE_URLS, fresh_store

IDLE = 0.4
"""Seconds: short, so that the tests wait little; long enough for a write to land before it."""


@pytest.fixture(params=STORE_URLS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_store(str(request.param), tmp_path)


def with_idle(url: str, idle: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}idle_timeout={idle}"


def commit_one(store: Store, session_id: str, key: str, value: int) -> None:
    """One successful call of the session that sets ``key``."""
    call_id = f"call-{key}-{value}"
    assert store.begin_call(session_id, call_id, "t", {}) is None
    delta = StateDelta.from_dict({"set": {key: value}})
    events = call_events(call_id=call_id, tool="t", args={}, response={}, delta=delta, author="agent")
    store.commit_call(session_id, call_id, delta, events, {"ok": True})


def test_an_idle_session_expires_and_its_id_starts_afresh_while_app_and_user_state_stay(
    store_url: str,
) -> None:
    with open_store(with_idle(store_url, f"{IDLE}s")) as store:
        assert store.idle_timeout == IDLE
        store.create_session("app", "u", "old", {"n": 1, "app:shared": 1, "user:pref": "x"})
        store.create_session("app", "u", "busy", {"n": 1})
        deadline = time.monotonic() + IDLE * 1.5
        while time.monotonic() < deadline:  # "busy" is updated all along: it never expires
            commit_one(store, "busy", "n", int(time.monotonic() * 1000))
            time.sleep(IDLE / 8)
        assert store.get_session("old") is None, "idle longer than the timeout: expired"
        assert store.get_session("busy") is not None
        fresh = store.get_or_create_session("app", "u", "old", {"n": 5})
        assert fresh.state == {"n": 5, "app:shared": 1, "user:pref": "x"}
        assert [s.id for s in store.list_sessions()] == ["old", "busy"]


def test_prune_deletes_only_sessions_idle_that_long_and_a_dry_run_deletes_nothing(store_url: str) -> None:
    with open_store(store_url) as store:
        with pytest.raises(InvalidArguments, match="idle_timeout=30d"):
            store.prune()
        store.create_session("app", "u", "a", {"k": 1})
        store.create_session("app", "u", "b", {"k": 1})
        time.sleep(IDLE)
        commit_one(store, "b", "k", 2)
        assert store.prune(IDLE / 2, dry_run=True) == ["a"]
        assert store.get_session("a") is not None
        assert store.prune(IDLE / 2) == ["a"]
        assert store.get_session("a") is None and store.get_session("b") is not None
        assert store.prune(3600) == []


def test_a_store_sweeps_expired_sessions_by_itself(store_url: str) -> None:
    with open_store(store_url, idle_timeout=IDLE) as store:
        for index in range(5):
            store.create_session("app", "u", f"s{index}", {"k": index})
        time.sleep(IDLE * 1.2)
        store.create_session("app", "u", "new", {})  # a write: the sweep is due
        assert [s.id for s in store.list_sessions()] == ["new"]


@pytest.mark.services
@pytest.mark.parametrize("server", REDIS_URLS)
def test_redis_drops_an_idle_session_by_its_time_to_live(server: str, tmp_path: Path) -> None:
    for url in fresh_store(server, tmp_path):
        client = redis.Redis.from_url(server, decode_responses=True)
        prefix = url.split("prefix=")[1]
        with open_store(url, idle_timeout=IDLE) as store:
            store.create_session("app", "u", "s", {"k": 1, "app:a": 1})
            commit_one(store, "s", "k", 2)
            session_keys = [f"{prefix}:{kind}:s" for kind in ("session", "events", "calls")]
            session_keys.append(f'{prefix}:state:["app","u","s"]')
            assert [0 < client.pttl(key) <= IDLE * 1000 for key in session_keys] == [True] * 4
            time.sleep(IDLE * 1.3)
            assert client.exists(f"{prefix}:session:s") == 0, "gone without any sweep"
            assert client.hget(f'{prefix}:state:["app","",""]', "app:a") == "1", "app state stays"
            assert store.list_sessions() == []
        client.close()


def test_session_prune_and_list_on_the_command_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/s.db"
    with open_store(url) as store:
        store.create_session("app", "u", "old", {"doc": "x" * 50_000})
    time.sleep(0.05)

    def toolpen(*args: str) -> subprocess.CompletedProcess[str]:
        code = "from runtime._cli import main; main()"
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)

    listed = toolpen("session", "list", "--store", url)
    assert listed.returncode == 0 and "old" in listed.stdout
    assert (
        "1 session(s); store size:" in listed.stdout and "kB (the database file and its WAL)" in listed.stdout
    )
    dry = toolpen("session", "prune", "--idle", "0.01s", "--dry-run", "--store", url)
    assert dry.returncode == 0 and "would delete 1 idle session(s)" in dry.stdout and "old" in dry.stdout
    bad = toolpen("session", "prune", "--idle", "soon", "--store", url)
    assert bad.returncode == 2 and "not a duration" in bad.stderr
    pruned = toolpen("session", "prune", "--store", with_idle(url, "0.01s"))
    assert pruned.returncode == 0 and "deleted 1 idle session(s)" in pruned.stdout
    assert "no sessions in" in toolpen("session", "list", "--store", url).stdout


def test_durations_and_the_url_parameter() -> None:
    assert [parse_duration(text) for text in ("90", "90s", "15m", "12h", "30d", "0.5s")] == [
        90,
        90,
        900,
        43_200,
        2_592_000,
        0.5,
    ]
    for bad in ("", "0", "-1s", "7 weeks", "1w"):
        with pytest.raises(InvalidArguments, match="not a duration"):
            parse_duration(bad)
    assert split_idle_timeout("sqlite:///a.db?idle_timeout=1h") == ("sqlite:///a.db", 3600)
    assert split_idle_timeout("redis://h:1/0?prefix=p&idle_timeout=2m") == ("redis://h:1/0?prefix=p", 120)
    assert split_idle_timeout("memory://") == ("memory://", None)
