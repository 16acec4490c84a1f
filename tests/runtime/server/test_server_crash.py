"""Kill -9 one of two replicas in the middle of calls, retry on the other with the same call ids.

Afterwards every call has one final answer: a success (run once, or replayed from the store)
or ``unknown_outcome`` (it started on the killed replica and stored no result). The check: each
session's counter is exactly the sum of its successful calls' increments, and its events name
each successful call once and no other call. So no committed state is lost and no call's state
change is applied twice.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.runtime.server.test_server_replicas import (
    ADD,
    called_ids,
    post_call,
    session_of,
    start,
    stop_all,
    store_params,
    store_url_for,
)

pytestmark = pytest.mark.slow

THREADS = 4
CALLS = 40
KEY = "key-crash-test-0123456789"


@pytest.fixture(params=store_params())
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from store_url_for(str(request.param), tmp_path)


def test_killing_a_replica_mid_calls_loses_nothing_and_applies_nothing_twice(
    store_url: str, tmp_path: Path
) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "add.py").write_text(ADD)
    tenant = f"crash-{time.time_ns()}"
    victim, survivor = replicas = start(store_url, tmp_path / "tools", {KEY: tenant}, tmp_path)
    answered_by_victim = threading.Semaphore(0)
    retried = 0

    def client(thread: int) -> dict[str, tuple[int, dict[str, Any]]]:
        nonlocal retried
        finals: dict[str, tuple[int, dict[str, Any]]] = {}
        for i in range(CALLS):
            call_id, n = f"c{thread}-{i}", i + 1
            try:
                result = post_call(victim.url, KEY, f"s{thread}", call_id, n)
                answered_by_victim.release()
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                # killed before it answered, or after the response's head but before its body
                retried += 1
                result = post_call(survivor.url, KEY, f"s{thread}", call_id, n)
            finals[call_id] = (n, result)
        return finals

    try:
        with ThreadPoolExecutor(THREADS) as pool:
            futures = [pool.submit(client, thread) for thread in range(THREADS)]
            for _ in range(THREADS * CALLS // 4):  # a quarter of the calls done: kill mid-flight
                assert answered_by_victim.acquire(timeout=60)
            victim.kill()
            outcomes = [future.result() for future in futures]
        unknown = 0
        for thread, finals in enumerate(outcomes):
            succeeded = {cid: n for cid, (n, r) in finals.items() if r["success"]}
            failed = {cid: r["error"]["kind"] for cid, (n, r) in finals.items() if not r["success"]}
            assert set(failed.values()) <= {"unknown_outcome"}, failed
            unknown += len(failed)
            session = session_of(survivor.url, KEY, f"s{thread}")
            assert session["state"]["count"] == sum(succeeded.values())
            assert sorted(called_ids(session)) == sorted(succeeded)
        assert retried > 0, "the kill happened after every call: nothing was tested"
        assert unknown <= THREADS, "at most one call per client can be cut off mid-run"
    finally:
        stop_all(replicas)
