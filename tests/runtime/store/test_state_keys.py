"""Per-key state rows (issue 36): a commit writes the keys it changes and nothing else, a store
reads a large value again only when it changed (also when another process changed it), and
the migration from one JSON row per scope keeps every session readable. Real SQLite files and
the PostgreSQL server of ``TOOLPEN_TEST_STORE_URLS``."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from runtime._state import StateDelta
from runtime.store import open_store
from runtime.store._postgres import PostgresStore
from runtime.store._sqlite import SqliteStore
from sandbox.common.state_delta import json_size
from tests.runtime.store.test_store import POSTGRES_URLS, REDIS_URLS, fresh_postgres, fresh_redis, run_call
from tests.runtime.store.test_store import postgres_url as postgres_url  # noqa: F401  (a fixture)

SESSION_STATE = {
    "k": 1,
    "f": 1.5,
    "t": True,
    "no": None,
    "s": 'he said "hi"\n',
    "u": "ünï 😀",
    "nested": {"a": [1, {"b": False}]},
    "empty": [],
    "big": "x" * 10_000,
}
STATE = {"app:a": 2, "user:u": [3], **SESSION_STATE}
ROWS = [
    ("app", "", "", {"app:a": 2}),
    ("app", "ana", "", {"user:u": [3]}),
    ("app", "ana", "s1", SESSION_STATE),
]


def _rows(conn: sqlite3.Connection | psycopg.Connection[tuple[object, ...]]) -> dict[str, tuple[int, int]]:
    """Each state key's (size, revision)."""
    cursor = conn.execute("SELECT key, size, rev FROM toolpen_state_keys")
    return {key: (size, rev) for key, size, rev in cursor.fetchall()}


def test_sqlite_version_2_file_is_migrated_to_one_row_per_key(tmp_path: Path) -> None:
    path = tmp_path / "v2.db"
    SqliteStore(path).close()  # the current tables, then made version 2's: one JSON row per scope
    with sqlite3.connect(path) as raw:
        raw.executescript(
            "DROP TABLE toolpen_state_keys; DROP TABLE toolpen_state_scopes;"
            "CREATE TABLE toolpen_states (app_name text NOT NULL, user_id text NOT NULL,"
            " session_id text NOT NULL, state TEXT NOT NULL, PRIMARY KEY (app_name, user_id, session_id));"
            "INSERT INTO toolpen_sessions VALUES ('s1', 'app', 'ana', 10.0, 20.0);"
            "PRAGMA user_version = 2;"
        )
        raw.executemany(
            "INSERT INTO toolpen_states VALUES (?, ?, ?, ?)",
            [(*owner, json.dumps(state, ensure_ascii=False)) for *owner, state in ROWS],
        )
    raw.close()
    with pytest.raises(Exception, match="toolpen store migrate"):
        SqliteStore(path)
    with SqliteStore(path, migrate=True) as store:
        assert store.schema is not None and store.schema.describe() == "migrated from version 2 to version 4"
        session = store.require_session("s1")
        assert session.state == STATE and list(session.state) == list(STATE)  # the order kept too
        assert session.state_sizes == {key: json_size(value) for key, value in STATE.items()}
        store.begin_call("s1", "c1", "tool", {})
        store.commit_call("s1", "c1", StateDelta({"k": 2}, ["no"]), [], {})
        assert store.require_session("s1").state == {**{k: v for k, v in STATE.items() if k != "no"}, "k": 2}


def test_postgres_version_1_schema_is_migrated_to_one_row_per_key(postgres_url: str) -> None:  # noqa: F811
    PostgresStore(postgres_url).close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(
            "DROP TABLE toolpen_state_keys; DROP TABLE toolpen_state_scopes;"
            "CREATE TABLE toolpen_states (app_name text NOT NULL, user_id text NOT NULL,"
            " session_id text NOT NULL, state jsonb NOT NULL, PRIMARY KEY (app_name, user_id, session_id));"
            "INSERT INTO toolpen_sessions VALUES ('s1', 'app', 'ana', 10.0, 20.0);"
            "UPDATE toolpen_schema SET version = 1"
        )
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO toolpen_states VALUES (%s, %s, %s, %s)",
                [(*owner, json.dumps(state)) for *owner, state in ROWS],
            )
    with pytest.raises(Exception, match="toolpen store migrate"):
        PostgresStore(postgres_url)
    with open_store(postgres_url, migrate=True) as store:
        assert store.schema is not None and store.schema.describe() == "migrated from version 1 to version 3"
        assert store.require_session("s1").state == STATE
        run_call(store, "s1", "c1", StateDelta({"k": 2}))
        assert store.require_session("s1").state == {**STATE, "k": 2}


@pytest.fixture(params=["sqlite", "postgresql"])
def sql_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqliteStore | PostgresStore]:
    if request.param == "sqlite":
        with SqliteStore(tmp_path / "s.db") as store:
            yield store
        return
    if not POSTGRES_URLS:
        pytest.skip("no PostgreSQL server in TOOLPEN_TEST_STORE_URLS")
    for url in fresh_postgres(POSTGRES_URLS[0]):
        with PostgresStore(url) as store:
            yield store


def _raw_rows(store: SqliteStore | PostgresStore) -> dict[str, tuple[int, int]]:
    if isinstance(store, SqliteStore):
        with sqlite3.connect(store.path) as raw:
            rows = _rows(raw)
        raw.close()
        return rows
    with psycopg.connect(store.url, autocommit=True) as conn:
        return _rows(conn)


def test_a_commit_writes_only_the_keys_it_changes(sql_store: SqliteStore | PostgresStore) -> None:
    sql_store.create_session("app", "ana", "s1", {"blob": "y" * 100_000, "n": 0})
    before = _raw_rows(sql_store)
    run_call(sql_store, "s1", "c1", StateDelta({"n": 1, "added": [1]}))
    after = _raw_rows(sql_store)
    assert after["blob"] == before["blob"]  # same revision: the large row was not rewritten
    assert after["n"][1] != before["n"][1] and after["added"][0] == len("[1]")
    run_call(sql_store, "s1", "c2", StateDelta({}, ["added"]))
    assert set(_raw_rows(sql_store)) == {"blob", "n"}
    assert sql_store.delete_session("s1") and _raw_rows(sql_store) == {}


@pytest.fixture(params=["sqlite", "postgresql", "redis"])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A store URL two store objects can open at once (as two processes would)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared.db'}"
        return
    urls = POSTGRES_URLS if request.param == "postgresql" else REDIS_URLS
    if not urls:
        pytest.skip(f"no {request.param} server in TOOLPEN_TEST_STORE_URLS")
    yield from (fresh_postgres if request.param == "postgresql" else fresh_redis)(urls[0])


def test_a_large_value_another_process_changed_is_read_again(shared_url: str) -> None:
    with open_store(shared_url) as one, open_store(shared_url) as other:  # two caches
        one.create_session("app", "ana", "s1", {"blob": "a" * 50_000, "n": 0})
        assert one.require_session("s1").state["blob"] == "a" * 50_000  # now in one's cache
        run_call(other, "s1", "c1", StateDelta({"blob": "b" * 50_000}))
        assert one.require_session("s1").state == {"blob": "b" * 50_000, "n": 0}
        mine = one.require_session("s1").state
        mine["blob"] = "changed by the caller"  # a copy: the cache keeps the stored value
        assert one.require_session("s1").state["blob"] == "b" * 50_000
        run_call(other, "s1", "c2", StateDelta({"blob": "small"}, ["n"]))
        assert one.require_session("s1").state == {"blob": "small"}
        assert one.require_session("s1").state_sizes == {"blob": len('"small"')}
