"""A shared store reads none of a scope's rows while the scope's version is unchanged (issue 36):
a value changed behind the store's back, without a new version, stays unseen; this store's own
commits roll its cached scope forward; a new version (another writer's commit) makes it read the
scope again. Real SQLite files, and the PostgreSQL and Redis servers of
``TOOLPEN_TEST_STORE_URLS``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
import redis

from runtime._state import StateDelta
from runtime.store import Store, open_store
from runtime.store._redis_store import split_prefix
from tests.runtime.store.test_store import POSTGRES_URLS, REDIS_URLS, fresh_postgres, fresh_redis, run_call

KEYS = {f"k{index}": index for index in range(2000)}
SESSION = ("app", "ana", "s1")


def _sql(url: str) -> Callable[[str], None]:
    """A function running one statement on the store's database, outside the store."""
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")

        def sqlite(statement: str) -> None:
            with sqlite3.connect(path) as raw:
                raw.execute(statement)
            raw.close()

        return sqlite

    def postgres(statement: str) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(statement)

    return postgres


def _behind_the_back(url: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """Two writes outside the store: set k5 to -1 in the stored rows (the scope's version kept),
    and give the session's scope a new version."""
    if url.startswith("redis"):
        client_url, prefix = split_prefix(url)
        owner = '["app","ana","s1"]'

        def tamper() -> None:
            with redis.Redis.from_url(client_url) as client:
                client.hset(f"{prefix}:state:{owner}", "k5", "-1")

        def new_version() -> None:
            with redis.Redis.from_url(client_url) as client:
                client.incr(f"{prefix}:version:{owner}")

        return tamper, new_version
    run = _sql(url)
    where = "WHERE app_name = 'app' AND user_id = 'ana' AND session_id = 's1'"
    return (
        lambda: run(f"UPDATE toolpen_state_keys SET value = '-1' {where} AND key = 'k5'"),
        lambda: run(f"UPDATE toolpen_state_scopes SET version = version + 1 {where}"),
    )


@pytest.fixture(params=["sqlite", "postgresql", "redis"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 's.db'}"
        return
    urls = POSTGRES_URLS if request.param == "postgresql" else REDIS_URLS
    if not urls:
        pytest.skip(f"no {request.param} server in TOOLPEN_TEST_STORE_URLS")
    yield from (fresh_postgres if request.param == "postgresql" else fresh_redis)(urls[0])


def test_an_unchanged_scope_is_not_read_again(url: str) -> None:
    tamper, new_version = _behind_the_back(url)
    with open_store(url) as store:
        store.create_session(*SESSION, {**KEYS, "app:a": 1})
        assert store.require_session("s1").state["k5"] == 5
        tamper()
        assert store.require_session("s1").state["k5"] == 5  # held at its version: not read
        run_call(store, "s1", "c1", StateDelta({"k1": 100, "new": [1]}, ["k2"]))
        state = store.require_session("s1").state
        assert (state["k1"], state["new"], "k2" in state, state["k5"]) == (
            100,
            [1],
            False,
            5,
        )  # rolled forward
        state["new"].append(2)  # what a caller does to a state it read never reaches the store
        assert store.require_session("s1").state["new"] == [1]
        new_version()
        assert store.require_session("s1").state["k5"] == -1  # a new version: read again


def test_another_writers_commit_is_seen(url: str) -> None:
    with open_store(url) as store, open_store(url) as other:
        store.create_session(*SESSION, {**KEYS, "app:a": 1})
        other.create_session("app", "bob", "s2", {})
        assert store.require_session("s1").state["app:a"] == 1
        run_call(other, "s2", "c1", StateDelta({"app:a": 2, "k5": 0}))  # app: shared, k5 of s2 only
        state = store.require_session("s1").state
        assert (state["app:a"], state["k5"]) == (2, 5)
        assert _rolled(store, other)


def _rolled(store: Store, other: Store) -> bool:
    """Both stores see one state after each wrote a shared key in turn."""
    run_call(store, "s1", "c2", StateDelta({"app:a": 3}))
    run_call(other, "s2", "c2", StateDelta({"app:b": 4}))
    seen = store.require_session("s1").state
    return (seen["app:a"], seen["app:b"]) == (3, 4) and other.require_session("s2").state["app:a"] == 3
