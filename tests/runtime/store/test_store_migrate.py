"""`toolpen store migrate URL` on every store, through the real CLI: an empty database gets its
schema, a current one is left alone, an older one is upgraded (and until then refused by
replicas, naming the command), a newer one refused. Real PostgreSQL and Redis."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import redis

from runtime.store import open_store
from runtime.store._redis_store import split_prefix
from sandbox.common.errors import StoreError
from tests.runtime.store.test_store import postgres_url, redis_url, write_version_1_file  # noqa: F401  (fixtures)

TOOLPEN = [sys.executable, "-c", "from runtime._cli import main; main()"]


def migrate(url: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOOLPEN, "store", "migrate", url],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )


@pytest.mark.slow
def test_sqlite_version_1_is_refused_then_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    write_version_1_file(path)
    url = f"sqlite:///{path}"
    with pytest.raises(StoreError, match="toolpen store migrate URL"):
        open_store(url)
    done = migrate(url)
    assert (done.returncode, done.stdout.strip()) == (0, f"{url}: migrated from version 1 to version 4")
    with open_store(url) as store:
        assert store.require_session("s1").state == {"k": 1, "app:a": 2, "user:u": 3}
    assert migrate(url).stdout.strip() == f"{url}: already at version 4: nothing to do"
    fresh = f"sqlite:///{tmp_path / 'new.db'}"
    assert migrate(fresh).stdout.strip() == f"{fresh}: created the schema at version 4"
    with sqlite3.connect(tmp_path / "new.db") as raw:
        assert raw.execute("PRAGMA user_version").fetchone() == (4,)
    raw.close()


@pytest.mark.slow
def test_postgres_migrate(postgres_url: str) -> None:  # noqa: F811
    done = migrate("env:STORE_URL", STORE_URL=postgres_url)  # the URL from the environment
    assert done.returncode == 0 and done.stdout.strip().endswith("created the schema at version 3"), done
    assert "toolpen:toolpen@" not in done.stdout  # no password printed
    assert migrate(postgres_url).stdout.strip().endswith("already at version 3: nothing to do")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE toolpen_schema SET version = 0")  # older than any this toolpen upgrades
    with pytest.raises(StoreError, match="toolpen store migrate URL"):
        open_store(postgres_url)
    refused = migrate(postgres_url)
    assert refused.returncode == 2 and "no migration from store schema version 0" in refused.stderr
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE toolpen_schema SET version = 99")
    newer = migrate(postgres_url)
    assert newer.returncode == 2 and "upgrade toolpen" in newer.stderr


@pytest.mark.slow
def test_redis_migrate(redis_url: str) -> None:  # noqa: F811
    assert migrate(redis_url).stdout.strip().endswith("created the schema at version 1")
    assert migrate(redis_url).stdout.strip().endswith("already at version 1: nothing to do")
    client_url, prefix = split_prefix(redis_url)
    client = redis.Redis.from_url(client_url)
    client.set(f"{prefix}:schema", 99)
    with pytest.raises(StoreError, match="schema version 99"):
        open_store(redis_url)
    newer = migrate(redis_url)
    assert newer.returncode == 2 and "upgrade toolpen" in newer.stderr
    client.delete(f"{prefix}:schema")
    client.close()
