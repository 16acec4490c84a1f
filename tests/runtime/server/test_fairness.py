"""Fairness under a hot session, on every store (SQLite, PostgreSQL, Redis): other tenants keep
their latency, a call's wall time starts once it holds its session, and a lock wait past its
limit is ``busy``, stored nowhere, so the same call id can run later."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests

from runtime import Limits, Runtime
from runtime._server import ServerConfig, parse_api_keys
from tests.runtime.server.test_server import KEY_A, KEY_B, auth, call, serve, tool_files
from tests.runtime.store.test_store import store_url  # noqa: F401  (the fixture: every store, a fresh namespace each)

SLOW = '''
import time


def slow(seconds: float) -> int:
    """Holds its session a while, then counts.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    context.state["n"] = context.state.get("n", 0) + 1
    return context.state["n"]
'''

PING = '''
def ping() -> str:
    """Answers pong."""
    return "pong"
'''


def runtime_on(url: str, wall_time: float = 10.0) -> Runtime:
    runtime = Runtime(store=url, limits=Limits(wall_time=wall_time), pool_size=2)
    runtime.add_tool(SLOW)
    return runtime


@pytest.mark.slow
def test_wall_time_starts_once_the_session_is_locked(store_url: str) -> None:  # noqa: F811
    if store_url == "memory://":
        pytest.skip("covered by the stores shared across processes")
    with runtime_on(store_url, wall_time=1.5) as rt, ThreadPoolExecutor(2) as pool:
        first = pool.submit(rt.call, "slow", {"seconds": 1.0}, session_id="s", call_id="first")
        time.sleep(0.3)  # the second waits about 0.7 s, then runs 1 s: 1.7 s > 1.5 s in all
        second = pool.submit(rt.call, "slow", {"seconds": 1.0}, session_id="s", call_id="second")
        results = [first.result(), second.result()]
    assert [r.success for r in results] == [True, True], [r.error for r in results]
    assert sorted(r.output for r in results) == [1, 2]


def test_a_lock_wait_past_its_limit_is_busy_and_not_stored(store_url: str) -> None:  # noqa: F811
    with runtime_on(store_url) as rt:
        with rt.store.lock("held"):
            started = time.monotonic()
            refused = rt.call("slow", {"seconds": 0}, session_id="held", call_id="c1", lock_wait=0.3)
            assert time.monotonic() - started < 5
        assert refused.error is not None and refused.error.kind == "busy", refused.error
        assert rt.store.get_call("held", "c1") is None
        retried = rt.call("slow", {"seconds": 0}, session_id="held", call_id="c1")
        assert retried.success and not retried.replayed and retried.output == 1


# -- the service -------------------------------------------------------------------------------


def service(folder: Path, store: str, **options: object) -> Iterator[str]:
    config = ServerConfig(
        store=store,
        tool_paths=tool_files(folder, slow=SLOW, ping=PING),
        api_keys=parse_api_keys([f"{KEY_A}=hot", f"{KEY_B}=other"]),
        workers=2,
        **options,  # type: ignore[arg-type]
    )
    yield from serve(config)


def hot_calls(url: str, count: int, seconds: float) -> list[requests.Response]:
    """``count`` concurrent calls of ``slow`` on one session of tenant hot."""
    with ThreadPoolExecutor(count) as pool:
        futures = [
            pool.submit(call, url, KEY_A, "hot", "slow", {"seconds": seconds}, call_id=f"hot-{i}")
            for i in range(count)
        ]
        return [future.result() for future in futures]


@pytest.mark.slow
def test_another_tenant_keeps_its_latency_beside_a_hot_session(store_url: str, tmp_path: Path) -> None:  # noqa: F811
    if store_url == "memory://":
        pytest.skip("the service runs on a shared store")
    for url in service(tmp_path, store_url):
        assert call(url, KEY_B, "quiet", "ping", {}).json()["output"] == "pong"  # warm
        hot = threading.Thread(target=hot_calls, args=(url, 24, 0.25))
        hot.start()
        time.sleep(1.0)  # 24 calls of 0.25 s: the queue lasts about 6 s
        latencies = []
        for i in range(6):
            started = time.monotonic()
            if i % 2:
                assert requests.get(f"{url}/v1/sessions", headers=auth(KEY_B), timeout=30).ok
            else:
                assert call(url, KEY_B, "quiet", "ping", {}).json()["output"] == "pong"
            latencies.append(time.monotonic() - started)
        hot.join()
        assert max(latencies) < 1.0, latencies


@pytest.mark.slow
def test_the_service_answers_busy_with_503_and_the_same_call_id_runs_later(
    store_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    if store_url == "memory://":
        pytest.skip("the service runs on a shared store")
    for url in service(tmp_path, store_url, lock_wait=0.5):
        responses = hot_calls(url, 3, 1.0)
        busy = [r for r in responses if r.status_code == 503]
        assert busy and all(r.json()["error"]["kind"] == "busy" for r in busy)
        assert all(r.headers["Retry-After"] == "1" for r in busy)
        index = responses.index(busy[0])
        retried = call(url, KEY_A, "hot", "slow", {"seconds": 0}, call_id=f"hot-{index}")
        assert retried.status_code == 200 and retried.json()["success"] and not retried.json()["replayed"]
        assert 'toolpen_tool_calls_total{outcome="busy"}' in requests.get(f"{url}/metrics", timeout=5).text


@pytest.mark.slow
def test_a_session_queue_is_bounded(tmp_path: Path) -> None:
    for url in service(tmp_path, f"sqlite:///{tmp_path / 's.db'}", max_queued=2):
        started = time.monotonic()
        responses = hot_calls(url, 8, 0.5)
        statuses = sorted(r.status_code for r in responses)
        assert statuses.count(200) >= 3 and statuses.count(503) >= 1, statuses
        assert time.monotonic() - started < 8
