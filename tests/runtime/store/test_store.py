"""One conformance suite for every session store, parametrized over store URLs.

A new store joins by adding its URL to ``STORE_URLS``; stores shared between processes also
run the multi-process tests. Server stores come from the environment variable
``TOOLPEN_TEST_STORE_URLS`` (space separated; by default the PostgreSQL and Redis servers that
``eval "$(bash scripts/test-services.sh)"`` starts). Each test gets a fresh namespace on the
server (a schema, a key prefix), removed afterwards. A server that does not answer skips its
tests, except under ``CI=true``, where it fails them. The last sections test what only one
store has: SQLite's URL rules, file and schema version; the server stores' own edges.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import TypeVar

import psycopg
import pytest
import redis

from runtime._session import call_events
from runtime._state import Scope, StateDelta
from runtime.store import DEFAULT_STORE_URL, SqliteStore, Store, open_store
from runtime.store import _redis_store as redis_store
from runtime.store._postgres import PostgresStore
from runtime.store._redis_store import RedisStore, split_prefix
from sandbox.common.errors import InvalidArguments, InvalidState, NotFound, Timeout, ToolpenError
from tests.conftest import service_params

T = TypeVar("T")

SERVER_URLS = os.environ.get(
    "TOOLPEN_TEST_STORE_URLS",
    "postgresql://toolpen:toolpen@127.0.0.1:55432/toolpen redis://127.0.0.1:56379/0",
).split()
STORE_URLS = ["memory://", "sqlite:///{tmp}/sessions.db", *service_params(SERVER_URLS)]
SHARED_ACROSS_PROCESSES = ("sqlite://", "postgresql://", "redis://")
POSTGRES_URLS = [url for url in SERVER_URLS if url.startswith("postgresql://")]
REDIS_URLS = [url for url in SERVER_URLS if url.startswith(("redis://", "rediss://"))]


def connect_or_skip(url: str, connect: Callable[[], T]) -> T:
    """``connect()``; if the server does not answer, skip the test (fail it when ``CI=true``)."""
    try:
        return connect()
    except (psycopg.OperationalError, redis.ConnectionError) as exc:
        reason = f"no server at {url}: {exc}".strip()
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (CI must run every store: .ci/run starts the servers)")
        pytest.skip(f'{reason}; start it with: eval "$(bash scripts/test-services.sh)"')


def server_answers(url: str) -> None:
    """Returns when the PostgreSQL or Redis server at ``url`` answers; else ``connect_or_skip``'s verdict."""
    if url.startswith("postgresql://"):
        connect_or_skip(url, lambda: psycopg.connect(url, connect_timeout=5)).close()
    else:
        client = redis.Redis.from_url(url, socket_connect_timeout=5)
        connect_or_skip(url, client.ping)
        client.close()


def fresh_postgres(url: str) -> Iterator[str]:
    """``url`` on a new, empty schema, dropped afterwards."""
    schema = f"test_{uuid.uuid4().hex[:16]}"
    with connect_or_skip(url, lambda: psycopg.connect(url, autocommit=True, connect_timeout=5)) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
        try:
            yield f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
        finally:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def fresh_redis(url: str) -> Iterator[str]:
    """``url`` with a new key prefix, its keys deleted afterwards."""
    prefix = f"test-{uuid.uuid4().hex[:16]}"
    client = redis.Redis.from_url(url, socket_connect_timeout=5)
    connect_or_skip(url, client.ping)
    try:
        yield f"{url}{'&' if '?' in url else '?'}prefix={prefix}"
    finally:
        for key in client.scan_iter(f"{prefix}:*"):
            client.delete(key)
        client.close()


@pytest.fixture(params=STORE_URLS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_store(str(request.param), tmp_path)


def fresh_store(template: str, tmp_path: Path) -> Iterator[str]:
    """A URL of ``STORE_URLS``: a file in ``tmp_path``, or a fresh namespace on a server."""
    url = template.format(tmp=tmp_path)
    if url.startswith("postgresql://"):
        yield from fresh_postgres(url)
    elif url.startswith(("redis://", "rediss://")):
        yield from fresh_redis(url)
    else:
        yield url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with open_store(store_url) as opened:
        yield opened


@pytest.fixture
def shared_url(store_url: str) -> str:
    """``store_url`` when several processes can open its store; the test skips for the others."""
    if not store_url.startswith(SHARED_ACROSS_PROCESSES):
        pytest.skip("this store lives in one process")
    return store_url


def run_call(store: Store, session_id: str, call_id: str, delta: StateDelta, output: object = None) -> None:
    """One successful call as the executor makes it: begin, then commit with its two events."""
    assert store.begin_call(session_id, call_id, "tool", {"x": 1}) is None
    events = call_events(
        call_id=call_id, tool="tool", args={"x": 1}, response={"result": output}, delta=delta, author="agent"
    )
    store.commit_call(session_id, call_id, delta, events, {"output": output})


def increment(store: Store, session_id: str, call_id: str) -> None:
    """Read-modify-write of state key ``n`` under the session's lock."""
    with store.lock(session_id):
        value = store.require_session(session_id).state.get("n", 0) + 1
        run_call(store, session_id, call_id, StateDelta({"n": value}), value)


def begin_and_hang(url: str, session_id: str, ready: EventType) -> None:
    """Take the lock, begin a call, then hang until killed: a crash in the middle of a call."""
    with open_store(url) as store, store.lock(session_id):
        store.begin_call(session_id, "c1", "tool", {})
        ready.set()
        time.sleep(60)


@contextmanager
def held_elsewhere(take: Callable[[], AbstractContextManager[None]]) -> Iterator[None]:
    """Hold the lock ``take()`` returns in another thread for the block."""
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with take():
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(5)
        yield
    finally:
        release.set()
        holder.join()


def hold_scope_and_hang(url: str, ready: EventType) -> None:
    """Hold the app scope's lock until killed."""
    with open_store(url) as store, store.lock_scopes("app", "ana", {Scope.APP}):
        ready.set()
        time.sleep(60)


def increment_in_process(url: str, session_id: str, worker: int, times: int) -> None:
    with open_store(url) as store:
        for i in range(times):
            increment(store, session_id, f"p{worker}-{i}")


# -- sessions --------------------------------------------------------------------------------


def test_create_and_get_session(store: Store) -> None:
    created = store.create_session("app", "ana", "s1", {"k": 1, "app:a": 2, "user:u": 3, "temp:t": 4})
    assert (created.id, created.app_name, created.user_id) == ("s1", "app", "ana")
    assert created.state == {"k": 1, "app:a": 2, "user:u": 3}
    assert created.events == []
    assert store.get_session("s1") == created
    assert store.get_session("nope") is None
    generated = store.create_session("app", "ana")
    assert generated.id and generated.id != "s1"


def test_create_refuses_a_taken_id_and_bad_names(store: Store) -> None:
    store.create_session("app", "ana", "s1", {"k": 1})
    with pytest.raises(InvalidArguments, match="already exists"):
        store.create_session("app", "bob", "s1", {"k": 2})
    assert store.get_session("s1").state == {"k": 1}  # type: ignore[union-attr]
    with pytest.raises(InvalidArguments):
        store.create_session("app", "", "s2")
    with pytest.raises(InvalidState):
        store.create_session("app", "ana", "s3", {"k": {1, 2}})
    assert store.get_session("s3") is None


def test_get_or_create_session(store: Store) -> None:
    first = store.get_or_create_session("app", "ana", "s1", {"k": 1})
    again = store.get_or_create_session("app", "ana", "s1", {"k": 2})
    assert again == first and again.state == {"k": 1}
    with pytest.raises(InvalidArguments, match="another app or user"):
        store.get_or_create_session("app", "bob", "s1")
    assert store.get_or_create_session("app", "ana").id != "s1"
    with pytest.raises(InvalidArguments, match="app_name"):
        store.get_or_create_session("", "ana", "s2")


def test_get_or_create_session_racing_threads_get_one_session(store: Store) -> None:
    found: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: found.append(store.get_or_create_session("app", "ana", "new", {"k": 1}).id)
        )
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == ["new"] * 8
    assert [s.id for s in store.list_sessions()] == ["new"]


def test_returned_values_are_copies(store: Store) -> None:
    store.create_session("app", "ana", "s1", {"k": {"list": [1]}})
    session = store.require_session("s1")
    session.state["k"]["list"].append(2)
    assert store.require_session("s1").state == {"k": {"list": [1]}}


def test_list_and_delete_sessions(store: Store) -> None:
    store.create_session("app", "ana", "a1", {"app:shared": 1, "user:mine": 2, "own": 3})
    store.create_session("app", "bob", "b1")
    store.create_session("other", "ana", "o1")
    run_call(store, "a1", "c1", StateDelta({"own": 4}))
    listed = store.list_sessions()
    assert [s.id for s in listed][0] == "a1"  # most recently updated first
    assert {s.id: s.event_count for s in listed} == {"a1": 2, "b1": 0, "o1": 0}
    assert {s.id for s in store.list_sessions(app_name="app")} == {"a1", "b1"}
    assert [s.id for s in store.list_sessions(app_name="app", user_id="ana")] == ["a1"]

    assert store.delete_session("a1") is True
    assert store.delete_session("a1") is False
    assert store.get_session("a1") is None and store.get_call("a1", "c1") is None
    assert {s.id for s in store.list_sessions()} == {"b1", "o1"}
    # shared scopes outlive the session; its own state does not come back with a new one
    assert store.create_session("app", "ana", "a1").state == {"app:shared": 1, "user:mine": 2}


# -- state scopes ----------------------------------------------------------------------------


def test_scopes_are_shared_as_their_prefix_says(store: Store) -> None:
    for sid, app, user in [
        ("a1", "app", "ana"),
        ("a2", "app", "ana"),
        ("b1", "app", "bob"),
        ("o1", "other", "ana"),
    ]:
        store.create_session(app, user, sid)
    run_call(store, "a1", "c1", StateDelta({"app:a": 1, "user:u": 2, "s": 3, "temp:t": 4}))
    assert store.require_session("a1").state == {"app:a": 1, "user:u": 2, "s": 3}
    assert store.require_session("a2").state == {"app:a": 1, "user:u": 2}
    assert store.require_session("b1").state == {"app:a": 1}
    assert store.require_session("o1").state == {}
    run_call(store, "b1", "c2", StateDelta({"app:b": 5}, ["app:a"]))
    assert store.require_session("a1").state == {"app:b": 5, "user:u": 2, "s": 3}


# -- calls -----------------------------------------------------------------------------------


def test_commit_call_applies_delta_events_and_result(store: Store) -> None:
    before = store.create_session("app", "ana", "s1", {"keep": 1, "gone": 2})
    run_call(
        store, "s1", "c1", StateDelta({"new": [1, "two"], "temp:t": 1}, ["gone", "missing"]), output="ok"
    )
    after = store.require_session("s1")
    assert after.state == {"keep": 1, "new": [1, "two"]}
    assert after.last_update_time >= before.last_update_time
    called, answered = after.events
    assert called.content.parts[0].function_call.name == "tool"  # type: ignore[union-attr]
    assert answered.content.parts[0].function_response.response == {"result": "ok"}  # type: ignore[union-attr]
    assert answered.actions.state_delta == {"set": {"new": [1, "two"]}, "deleted": ["gone", "missing"]}
    run_call(store, "s1", "c2", StateDelta({"more": 1}))
    assert [e.content.parts[0].function_call.id for e in store.require_session("s1").events[::2]] == [
        "c1",
        "c2",
    ]  # type: ignore[union-attr]
    record = store.get_call("s1", "c1")
    assert record is not None
    assert (record.status, record.result, record.tool, record.args) == (
        "succeeded",
        {"output": "ok"},
        "tool",
        {"x": 1},
    )
    assert record.finished and record.finished_at is not None


def test_begin_call_returns_the_existing_record(store: Store) -> None:
    store.create_session("app", "ana", "s1")
    assert store.begin_call("s1", "c1", "tool", {"a": 1}) is None
    started = store.begin_call("s1", "c1", "tool", {"a": 2})
    assert started is not None and started.status == "started" and not started.finished
    assert started.args == {"a": 1}  # the first run's record, untouched
    store.commit_call("s1", "c1", StateDelta({"k": 1}), [], {"output": 1})
    finished = store.begin_call("s1", "c1", "tool", {"a": 1})
    assert finished is not None and finished.result == {"output": 1}
    with pytest.raises(NotFound):
        store.begin_call("nope", "c1", "tool", {})


def test_a_finished_call_is_never_committed_twice(store: Store) -> None:
    store.create_session("app", "ana", "s1")
    run_call(store, "s1", "c1", StateDelta({"n": 1}))
    with pytest.raises(ToolpenError, match="already has a result"):
        store.commit_call("s1", "c1", StateDelta({"n": 2}), [], {"output": 2})
    with pytest.raises(ToolpenError, match="already has a result"):
        store.fail_call("s1", "c1", {"error": {"kind": "timeout"}})
    assert store.require_session("s1").state == {"n": 1}
    assert store.get_call("s1", "c1").result == {"output": None}  # type: ignore[union-attr]


def test_fail_call_stores_the_result_and_changes_no_state(store: Store) -> None:
    store.create_session("app", "ana", "s1", {"k": 1})
    before = store.require_session("s1")
    store.begin_call("s1", "c1", "tool", {})
    store.fail_call("s1", "c1", {"error": {"kind": "timeout", "message": "slow"}})
    assert store.require_session("s1") == before
    record = store.get_call("s1", "c1")
    assert record is not None and record.status == "failed" and record.result["error"]["kind"] == "timeout"  # type: ignore[index]


@pytest.mark.parametrize(
    "delta",
    [
        StateDelta({"app:ok": 1, "user:ok": 2, "bad": object()}),
        StateDelta({"app:bad": math.nan, "ok": 1}),
        StateDelta({"ok": 1, "user:bad": {"nested": {1, 2}}}),
    ],
)
def test_a_failing_commit_changes_nothing(store: Store, delta: StateDelta) -> None:
    store.create_session("app", "ana", "s1", {"app:a": 1, "user:u": 2, "s": 3})
    run_call(store, "s1", "c0", StateDelta({"s": 4}))
    before = store.require_session("s1")
    store.begin_call("s1", "c1", "tool", {})
    with pytest.raises(InvalidState):
        store.commit_call("s1", "c1", delta, [], {"output": 1})
    with pytest.raises(InvalidState):
        store.commit_call("s1", "c1", StateDelta({"ok": 1}), [], {"output": object()})
    assert store.require_session("s1") == before
    assert store.get_call("s1", "c1").status == "started"  # type: ignore[union-attr]


def test_commit_needs_a_session_and_a_begun_call(store: Store) -> None:
    with pytest.raises(NotFound):
        store.commit_call("nope", "c1", StateDelta({"k": 1}), [], {})
    store.create_session("app", "ana", "s1")
    with pytest.raises(NotFound, match="never begun"):
        store.commit_call("s1", "c1", StateDelta({"k": 1}), [], {})
    assert store.require_session("s1").state == {}


# -- locking ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_no_lost_update_from_eight_threads(store: Store) -> None:
    store.create_session("app", "ana", "s1", {"n": 0})
    threads = [
        threading.Thread(target=lambda t=t: [increment(store, "s1", f"t{t}-{i}") for i in range(25)])
        for t in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    session = store.require_session("s1")
    assert session.state["n"] == 200
    assert len(session.events) == 400


@pytest.mark.slow
def test_no_lost_update_from_four_processes(shared_url: str, store: Store) -> None:
    store.create_session("app", "ana", "s1", {"n": 0})
    spawn = multiprocessing.get_context("spawn")
    workers = [spawn.Process(target=increment_in_process, args=(shared_url, "s1", w, 50)) for w in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0, 0, 0]
    assert store.require_session("s1").state["n"] == 200


@pytest.mark.slow
def test_a_killed_holder_frees_the_lock_and_leaves_an_unknown_outcome(shared_url: str, store: Store) -> None:
    store.create_session("app", "ana", "s1", {"n": 0})
    spawn = multiprocessing.get_context("spawn")
    ready = spawn.Event()
    holder = spawn.Process(target=begin_and_hang, args=(shared_url, "s1", ready))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(Timeout), store.lock("s1", timeout=0.2):
            pass
    finally:
        holder.kill()
        holder.join()
    with store.lock("s1", timeout=5):
        earlier = store.begin_call("s1", "c1", "tool", {})
    assert earlier is not None and earlier.status == "started"
    assert store.require_session("s1").state == {"n": 0}


def test_other_sessions_proceed_while_one_is_locked(store: Store) -> None:
    store.create_session("app", "ana", "a")
    store.create_session("app", "ana", "b")
    with held_elsewhere(lambda: store.lock("a")):
        started = time.monotonic()
        with store.lock("b"):
            run_call(store, "b", "c1", StateDelta({"k": 1}))
        assert time.monotonic() - started < 1.0
        with pytest.raises(Timeout, match="busy"), store.lock("a", timeout=0.2):
            pass
    with store.lock("a", timeout=1):
        pass


ODD_IDS = ["a' OR '1'='1", "*", "a:*", "a b", "../../../../tmp/x", '"],["victim', "%s", "a\\", "é\u202e"]


def test_odd_ids_and_keys_never_reach_another_session(store: Store) -> None:
    store.create_session("victim", "u", "victim:s", {"app:secret": 1, "user:secret": 2, "secret": 3})
    for session_id in ODD_IDS:
        store.get_or_create_session("evil", "u", session_id)
        with store.lock(session_id):
            run_call(store, session_id, "c", StateDelta({"k": 1, "app:*": 2, "user:a:*": 3}))
        assert not {"app:secret", "user:secret", "secret"} & set(store.require_session(session_id).state)
    for app, user in (("victim", '","'), ('victim","', "u"), ("vict*", "u"), ("victim", "*")):
        state = store.create_session(app, user, f"x-{app}-{user}").state
        assert "user:secret" not in state and "secret" not in state
        assert "app:secret" not in state or app == "victim"
    assert store.require_session("victim:s").state == {"app:secret": 1, "user:secret": 2, "secret": 3}
    if store.url.startswith("sqlite:///"):
        lock_dir = Path(store.url.removeprefix("sqlite:///") + ".locks")
        assert all(len(name) == len("0" * 64 + ".lock") for name in os.listdir(lock_dir))


def test_scope_locks_exclude_their_scope_only(store: Store) -> None:
    with held_elsewhere(lambda: store.lock_scopes("app", "ana", {Scope.APP, Scope.USER})):
        with (
            pytest.raises(Timeout, match="the app: keys of app 'app' is busy"),
            store.lock_scopes("app", "bob", {Scope.APP}, timeout=0.2),
        ):
            pass
        with (
            pytest.raises(Timeout, match="the user: keys of user 'ana' of app 'app' is busy"),
            store.lock_scopes("app", "ana", {Scope.USER}, timeout=0.2),
        ):
            pass
        started = time.monotonic()
        with (
            store.lock_scopes("app", "bob", {Scope.USER, Scope.SESSION, Scope.TEMP}),
            store.lock_scopes("other", "ana", {Scope.APP, Scope.USER}),
            store.lock('["app",""]'),  # session ids never share a lock with a scope
            store.lock('["app","ana"]'),
        ):
            pass
        assert time.monotonic() - started < 1.0
    with store.lock_scopes("app", "ana", {Scope.APP, Scope.USER}, timeout=1):
        pass


@pytest.mark.slow
def test_a_killed_holder_frees_its_scope_lock(shared_url: str, store: Store) -> None:
    spawn = multiprocessing.get_context("spawn")
    ready = spawn.Event()
    holder = spawn.Process(target=hold_scope_and_hang, args=(shared_url, ready))
    holder.start()
    try:
        assert ready.wait(30)
        with pytest.raises(Timeout), store.lock_scopes("app", "bob", {Scope.APP}, timeout=0.2):
            pass
    finally:
        holder.kill()
        holder.join()
    with store.lock_scopes("app", "bob", {Scope.APP}, timeout=2 * redis_store.LOCK_TTL):
        pass


# -- sqlite:/// only -------------------------------------------------------------------------


def test_sqlite_url_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with open_store("sqlite:///rel/dir/s.db") as relative:
        assert isinstance(relative, SqliteStore) and relative.path == Path("rel/dir/s.db")
    assert (tmp_path / "rel/dir/s.db").is_file()
    with open_store(f"sqlite:///{tmp_path}/abs.db") as absolute:
        assert isinstance(absolute, SqliteStore) and absolute.path == tmp_path / "abs.db"
    with open_store() as default:
        assert default.url == DEFAULT_STORE_URL
    assert (tmp_path / ".toolpen/sessions.db").is_file()
    for bad in ["sqlite:///", "sqlite:///:memory:", "sqlite://x.db", "postgres://x", "s.db"]:
        with pytest.raises(InvalidArguments, match="unknown store URL"):
            open_store(bad)


def test_sqlite_persists_in_wal_mode(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/s.db"
    with open_store(url) as store:
        store.create_session("app", "ana", "s1", {"app:a": 1})
        run_call(store, "s1", "c1", StateDelta({"k": 2}))
    with open_store(url) as reopened:
        assert reopened.require_session("s1").state == {"app:a": 1, "k": 2}
        assert reopened.get_call("s1", "c1").status == "succeeded"  # type: ignore[union-attr]
    with sqlite3.connect(tmp_path / "s.db") as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_sqlite_refuses_an_unknown_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SqliteStore(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute("PRAGMA user_version = 99")
    with pytest.raises(ToolpenError, match="schema version 99"):
        SqliteStore(path)


VERSION_1_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    create_time REAL NOT NULL,
    last_update_time REAL NOT NULL
);
CREATE INDEX sessions_by_owner ON sessions (app_name, user_id);
CREATE TABLE states (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id)
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_by_session ON events (session_id, seq);
CREATE TABLE calls (
    session_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    args TEXT NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    started_at REAL NOT NULL,
    finished_at REAL,
    PRIMARY KEY (session_id, call_id)
);
PRAGMA user_version = 1;
"""
"""The schema of the previous release (tables without the ``toolpen_`` prefix)."""


def write_version_1_file(path: Path) -> list[dict[str, object]]:
    """A version 1 file with a session, its three scopes, a finished and a started call; its events."""
    delta = StateDelta({"k": 1, "app:a": 2, "user:u": 3})
    made = call_events(
        call_id="c1", tool="tool", args={"x": 1}, response={"result": 5}, delta=delta, author="agent"
    )
    events = [event.to_dict() for event in made]
    with sqlite3.connect(path) as raw:
        raw.executescript(VERSION_1_SCHEMA)
        raw.execute("INSERT INTO sessions VALUES ('s1', 'app', 'ana', 10.0, 20.0)")
        raw.executemany(
            "INSERT INTO states VALUES (?, ?, ?, ?)",
            [
                ("app", "", "", '{"app:a": 2}'),
                ("app", "ana", "", '{"user:u": 3}'),
                ("app", "ana", "s1", '{"k": 1}'),
            ],
        )
        raw.executemany(
            "INSERT INTO events (session_id, data) VALUES ('s1', ?)", [(json.dumps(e),) for e in events]
        )
        raw.execute(
            "INSERT INTO calls VALUES ('s1', 'c1', 'tool', '{\"x\": 1}', 'succeeded', '{\"output\": 5}', 11.0, 12.0)"
        )
        raw.execute("INSERT INTO calls VALUES ('s1', 'c2', 'tool', '{}', 'started', NULL, 13.0, NULL)")
    raw.close()
    return events


def test_sqlite_migrate_renames_the_tables_of_a_version_1_file_and_keeps_its_data(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    events = write_version_1_file(path)
    with pytest.raises(ToolpenError, match="toolpen store migrate"):
        SqliteStore(path)  # opening never migrates
    with SqliteStore(path, migrate=True) as store:
        assert store.schema is not None and store.schema.describe() == "migrated from version 1 to version 4"
        session = store.require_session("s1")
        assert session.state == {"k": 1, "app:a": 2, "user:u": 3}
        assert [e.to_dict() for e in session.events] == events
        assert (session.app_name, session.user_id, session.last_update_time) == ("app", "ana", 20.0)
        assert [s.model_dump() for s in store.list_sessions()] == [
            {"id": "s1", "app_name": "app", "user_id": "ana", "last_update_time": 20.0, "event_count": 2}
        ]
        finished, started = store.get_call("s1", "c1"), store.get_call("s1", "c2")
        assert finished is not None and (finished.status, finished.args, finished.result) == (
            "succeeded",
            {"x": 1},
            {"output": 5},
        )
        assert started is not None and (started.status, started.result, started.started_at) == (
            "started",
            None,
            13.0,
        )
        run_call(store, "s1", "c3", StateDelta({"k": 2}))  # writes go to the renamed tables
        assert len(store.require_session("s1").events) == 4
    with SqliteStore(path) as reopened:  # version 4 now: opened as it is
        assert reopened.require_session("s1").state == {"k": 2, "app:a": 2, "user:u": 3}
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (4,)
        names = {
            row[0] for row in raw.execute("SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")
        }
        assert [seq for (seq,) in raw.execute("SELECT seq FROM toolpen_events ORDER BY seq")] == [1, 2, 3, 4]
    raw.close()
    assert names == {
        "toolpen_sessions",
        "toolpen_state_keys",
        "toolpen_state_scopes",
        "toolpen_events",
        "toolpen_calls",
        "toolpen_sessions_by_owner",
        "toolpen_events_by_session",
        "toolpen_state_keys_in_order",
    }


def test_sqlite_a_failing_rename_leaves_a_version_1_file_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    write_version_1_file(path)
    with sqlite3.connect(path) as raw:  # a table in the way of the last rename
        raw.execute("CREATE TABLE toolpen_calls (x TEXT)")
    raw.close()
    with pytest.raises(ToolpenError, match="toolpen_calls"):
        SqliteStore(path, migrate=True)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (1,)
        assert raw.execute("SELECT count(*) FROM sessions").fetchone() == (1,)
        assert raw.execute("SELECT count(*) FROM events").fetchone() == (2,)
        names = {row[0] for row in raw.execute("SELECT name FROM sqlite_schema WHERE type = 'index'")}
    raw.close()
    assert {"sessions_by_owner", "events_by_session"} <= names


def test_sqlite_errors_are_structured(tmp_path: Path) -> None:
    (tmp_path / "junk.db").write_bytes(b"this is not a database" * 100)
    with pytest.raises(ToolpenError, match="junk.db: file is not a database"):
        SqliteStore(tmp_path / "junk.db")


# -- postgresql:// and redis:// only -------------------------------------------------------


@pytest.fixture(params=service_params(POSTGRES_URLS))
def postgres_url(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from fresh_postgres(request.param)


@pytest.fixture(params=service_params(REDIS_URLS))
def redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    yield from fresh_redis(request.param)


def test_server_urls_open_their_stores(postgres_url: str, redis_url: str) -> None:
    with open_store(postgres_url) as postgres, open_store(redis_url) as in_redis:
        assert isinstance(postgres, PostgresStore) and postgres.url == postgres_url
        assert isinstance(in_redis, RedisStore) and in_redis.url == redis_url
    assert split_prefix("redis://h:1/2?prefix=p&socket_timeout=3") == ("redis://h:1/2?socket_timeout=3", "p")
    assert split_prefix("redis://h:1/2") == ("redis://h:1/2", "toolpen")


def test_server_errors_are_structured_and_hide_the_password() -> None:
    with pytest.raises(ToolpenError, match=r"postgresql://127\.0\.0\.1:1/db") as refused:
        open_store("postgresql://user:secret@127.0.0.1:1/db")
    with pytest.raises(ToolpenError, match=r"redis://127\.0\.0\.1:1/0") as unreachable:
        open_store("redis://:secret@127.0.0.1:1/0")
    with pytest.raises(InvalidArguments, match="not a PostgreSQL URL") as unreadable:
        open_store("postgresql://user:secret@host/db?unknown=1")
    assert "secret" not in str(refused.value) + str(unreachable.value) + str(unreadable.value)


def test_postgres_refuses_nul_in_state_and_changes_nothing(postgres_url: str) -> None:
    with open_store(postgres_url) as store:
        store.create_session("app", "ana", "s1", {"k": 1})
        store.begin_call("s1", "c1", "tool", {})
        with pytest.raises(InvalidState, match="cannot be stored"):
            store.commit_call("s1", "c1", StateDelta({"k": "a\x00b", "app:x": 1}), [], {"output": 1})
        assert store.require_session("s1").state == {"k": 1}
        assert store.get_call("s1", "c1").status == "started"  # type: ignore[union-attr]


def test_postgres_refuses_an_unknown_schema_version(postgres_url: str) -> None:
    open_store(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE toolpen_schema SET version = 99")
    with pytest.raises(ToolpenError, match="schema version 99"):
        open_store(postgres_url)


def test_redis_lock_is_renewed_while_held(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redis_store, "LOCK_TTL", 0.3)
    with open_store(redis_url) as store:
        store.create_session("app", "ana", "s1")
        with store.lock("s1"):
            time.sleep(1.0)  # more than three times its time to live
            with pytest.raises(Timeout, match="busy"), store.lock("s1", timeout=0.1):
                pass
            run_call(store, "s1", "c1", StateDelta({"n": 1}))
        assert store.require_session("s1").state == {"n": 1}


def test_redis_commit_fails_when_the_lock_was_lost(redis_url: str) -> None:
    with open_store(redis_url) as store:
        store.create_session("app", "ana", "s1", {"n": 0})
        with store.lock("s1"):
            store.begin_call("s1", "c1", "tool", {})
            server_url, prefix = split_prefix(redis_url)
            with redis.Redis.from_url(server_url) as client:  # the lock expired and was taken
                client.set(f"{prefix}:lock:s1", "another holder")
            with pytest.raises(Timeout, match="lock expired"):
                store.commit_call("s1", "c1", StateDelta({"n": 1}), [], {"output": 1})
        assert store.require_session("s1").state == {"n": 0}
        assert store.get_call("s1", "c1").status == "started"  # type: ignore[union-attr]


def test_redis_commit_fails_when_a_scope_lock_was_lost(redis_url: str) -> None:
    with open_store(redis_url) as store:
        store.create_session("app", "ana", "s1", {"app:n": 0})
        with store.lock("s1"), store.lock_scopes("app", "ana", {Scope.APP}):
            store.begin_call("s1", "c1", "tool", {})
            server_url, prefix = split_prefix(redis_url)
            with redis.Redis.from_url(server_url) as client:  # the app's lock expired and was taken
                client.set(f'{prefix}:scope-lock:["app",""]', "another holder")
            with pytest.raises(Timeout, match="lock expired"):
                store.commit_call("s1", "c1", StateDelta({"app:n": 1}), [], {"output": 1})
        assert store.require_session("s1").state == {"app:n": 0}
