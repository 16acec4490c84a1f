"""Fairness of `toolpen serve`: another tenant's latency while one session is hot.

One replica. Tenant ``hot`` keeps ``--hot`` calls in flight on ONE session (a tool that sleeps
``--work`` seconds, so they queue for the session's lock); meanwhile tenant ``other`` sends
``--requests`` paced requests (alternately ``GET /v1/sessions`` and a call of a trivial tool in a
session of its own) and we report their p50 / p99 / max, first with nothing else running
(quiet), then with the hot session beside them.

    .venv/bin/python bench/bench_fairness.py --store postgresql://toolpen:toolpen@127.0.0.1:55432/toolpen
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_server_replicas import start, stop_all  # noqa: E402  (the tests' replica launcher)

PING = '''
def ping() -> str:
    """Answers pong."""
    return "pong"
'''

SLOW = '''
import time


def slow(seconds: float) -> int:
    """Holds its session for a while.

    Args:
        seconds: How long.
    """
    time.sleep(seconds)
    context.state["n"] = context.state.get("n", 0) + 1
    return context.state["n"]
'''


def measure(url: str, key: str, count: int, pace: float) -> list[float]:
    """``count`` paced requests of the quiet tenant; their latencies in seconds."""
    latencies: list[float] = []
    session = f"other-{uuid.uuid4().hex[:8]}"
    with requests.Session() as http:
        http.headers["Authorization"] = f"Bearer {key}"
        for i in range(count):
            started = time.perf_counter()
            if i % 2:
                response = http.get(f"{url}/v1/sessions", timeout=120)
            else:
                response = http.post(
                    f"{url}/v1/sessions/{session}/calls", json={"tool": "ping", "args": {}}, timeout=120
                )
            latencies.append(time.perf_counter() - started)
            assert response.status_code == 200, response.text
            time.sleep(max(0.0, pace - (time.perf_counter() - started)))
    return latencies


def keep_hot(url: str, key: str, in_flight: int, work: float, stop: threading.Event) -> dict[str, int]:
    """``in_flight`` clients calling ``slow`` on one session until ``stop``; outcomes counted."""
    session = f"hot-{uuid.uuid4().hex[:8]}"
    outcomes: dict[str, int] = {}
    lock = threading.Lock()

    def client() -> None:
        with requests.Session() as http:
            http.headers["Authorization"] = f"Bearer {key}"
            while not stop.is_set():
                response = http.post(
                    f"{url}/v1/sessions/{session}/calls",
                    json={"tool": "slow", "args": {"seconds": work}},
                    timeout=300,
                )
                body = response.json()
                error = body.get("error") or {}
                outcome = "ok" if body.get("success") else str(error.get("kind", response.status_code))
                with lock:
                    outcomes[outcome] = outcomes.get(outcome, 0) + 1

    with ThreadPoolExecutor(in_flight) as pool:
        for _ in range(in_flight):
            pool.submit(client)
        stop.wait()
    return outcomes


def summary(latencies: list[float]) -> str:
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return f"{cuts[49] * 1000:>8.1f} {cuts[98] * 1000:>8.1f} {max(latencies) * 1000:>8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="store URL; default a SQLite file")
    parser.add_argument("--hot", type=int, default=40, help="calls in flight on the hot session")
    parser.add_argument("--work", type=float, default=0.05, help="seconds each hot call holds the session")
    parser.add_argument("--requests", type=int, default=200, help="requests of the quiet tenant")
    parser.add_argument(
        "--pace", type=float, default=0.02, help="seconds between the quiet tenant's requests"
    )
    options = parser.parse_args()
    hot_key, other_key = (f"bench-{name}-{uuid.uuid4().hex}" for name in ("hot", "other"))
    run = uuid.uuid4().hex[:6]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "tools").mkdir()
        (work / "tools" / "ping.py").write_text(PING)
        (work / "tools" / "slow.py").write_text(SLOW)
        store = options.store or f"sqlite:///{work / 'sessions.db'}"
        keys = {hot_key: f"hot-{run}", other_key: f"other-{run}"}
        (replica,) = start(store, work / "tools", keys, work, 1)
        try:
            measure(replica.url, other_key, 20, options.pace)  # warm up
            quiet = measure(replica.url, other_key, options.requests, options.pace)
            stop = threading.Event()
            with ThreadPoolExecutor(1) as pool:
                hot = pool.submit(keep_hot, replica.url, hot_key, options.hot, options.work, stop)
                time.sleep(2.0)  # let the queue build up
                busy = measure(replica.url, other_key, options.requests, options.pace)
                stop.set()
                outcomes = hot.result()
        finally:
            stop_all([replica])
    print(
        f"store {store.split(':')[0]}, {options.hot} calls in flight on one hot session, {options.work}s each"
    )
    print(f"{'other tenant':<22} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    print(f"{'quiet':<22} {summary(quiet)}")
    print(f"{'beside the hot session':<22} {summary(busy)}")
    print("hot session outcomes:", outcomes)


if __name__ == "__main__":
    main()
