"""Issue 36's state-size figures: does a call that changes one key cost what the session holds?

For each store (``memory://``, a SQLite file, and the PostgreSQL and Redis servers named in
``TOOLPEN_TEST_STORE_URLS`` when it is set, each in a fresh schema or key prefix) and each size
of one large value (random text, so that no store compresses it) kept in the session's state besides a counter (nothing, 20 kB, 200 kB,
2 MB), a session is created holding it, warmed with a few calls of a tool that increments the
counter, then ``ROUNDS`` calls are timed. With ``--keys``, the state besides the counter is
many small keys instead (``KEYS``: 10,000 and 100,000 integers), and their ratio is to the
empty state too. Printed: the p50 per call, its ratio to the same call
on the empty state (the goal: <= 1.3x), and how much the store grew per call over ``GROWTH``
further calls (SQLite: the file and its WAL; PostgreSQL: the schema's relations; Redis: the
prefix's keys, ``MEMORY USAGE``; the memory store is not measured).

Run: ``.venv/bin/python bench/bench_state_size.py [--keys] [GROWTH]``. To measure another checkout's
code (the "before" of a change), put it first on the path: ``PYTHONPATH=/path/to/checkout``.
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: it picks the code measured

from bench.bench_session_growth import fresh, p50_p99  # noqa: E402
from runtime import Runtime  # noqa: E402
from tests.conftest import COUNTER  # noqa: E402

SIZES = {"nothing": 0, "20 kB": 20_000, "200 kB": 200_000, "2 MB": 2_000_000}
KEYS = {"nothing": 0, "10,000 keys": 10_000, "100,000 keys": 100_000}
WARM = 3
ROUNDS = 15
GROWTH = 30


def store_bytes(url: str) -> Callable[[], int] | None:
    """A function returning the store's size in bytes now, or None where it is not measured."""
    if url.startswith("sqlite:///"):
        import sqlite3

        path = Path(url.removeprefix("sqlite:///"))

        def sqlite_bytes() -> int:  # the file, its WAL folded in first (a WAL is reused, not grown)
            with sqlite3.connect(path) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return path.stat().st_size

        return sqlite_bytes
    if url.startswith("postgresql://"):
        import psycopg

        def postgres() -> int:
            with psycopg.connect(url) as conn:
                row = conn.execute(
                    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
                    " JOIN pg_namespace n ON n.oid = c.relnamespace"
                    " WHERE n.nspname = current_schema() AND c.relkind = 'r'"
                ).fetchone()
            return int(row[0]) if row else 0

        return postgres
    if url.startswith("redis://"):
        import redis

        prefix = url.rsplit("prefix=", 1)[1]

        def redis_bytes() -> int:
            client = redis.Redis.from_url(url.split("?")[0])
            try:
                return sum(client.memory_usage(key) or 0 for key in client.scan_iter(f"{prefix}:*"))
            finally:
                client.close()

        return redis_bytes
    return None


def large_value(size: int) -> dict[str, Any]:
    """A state of one value of about ``size`` bytes of random text (none for 0)."""
    return {"blob": secrets.token_urlsafe(size * 3 // 4)} if size else {}


def small_keys(count: int) -> dict[str, Any]:
    """A state of ``count`` integer keys."""
    return {f"k{index}": index for index in range(count)}


def measure(
    rt: Runtime, state: dict[str, Any], growth: int, size_of: Callable[[], int] | None
) -> tuple[float, float | None]:
    """p50 ms per call, and bytes the store grew per call over ``growth`` calls (or None)."""
    session_id = uuid.uuid4().hex
    rt.store.create_session(rt.app_name, rt.user_id, session_id, state)
    for _ in range(WARM):
        assert rt.call("bump", {"n": 1}, session_id=session_id).success
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        result = rt.call("bump", {"n": 1}, session_id=session_id)
        samples.append(time.perf_counter() - start)
        assert result.success, result.error
    grown = None
    if size_of is not None and growth:
        before = size_of()
        for _ in range(growth):
            assert rt.call("bump", {"n": 1}, session_id=session_id).success
        grown = (size_of() - before) / growth
    return p50_p99(samples)[0], grown


def main() -> None:
    args = sys.argv[1:]
    keys = "--keys" in args
    args = [arg for arg in args if arg != "--keys"]
    growth = int(args[0]) if args else GROWTH
    cases, make = (KEYS, small_keys) if keys else (SIZES, large_value)
    with tempfile.TemporaryDirectory() as tmp:
        stores = {"memory://": "memory://", "SQLite": f"sqlite:///{Path(tmp) / 'sessions.db'}"}
        for url in os.environ.get("TOOLPEN_TEST_STORE_URLS", "").split():
            stores["PostgreSQL" if url.startswith("postgresql://") else "Redis"] = url
        print(
            f"| store | state besides the counter | p50 per call | vs nothing | growth per call ({growth} calls) |"
        )
        print("| --- | --- | ---: | ---: | ---: |")
        for label, template in stores.items():
            with fresh(template) as url, Runtime(store=url) as rt:
                rt.add_tool(COUNTER)
                size_of = store_bytes(url)
                empty = None
                for name, size in cases.items():
                    p50, grown = measure(rt, make(size), growth, size_of)
                    empty = empty or p50
                    per_call = "-" if grown is None else f"{grown / 1024:.1f} kB"
                    print(
                        f"| {label} | {name} | {p50:.2f} ms | {p50 / empty:.2f}x | {per_call} |", flush=True
                    )


if __name__ == "__main__":
    main()
