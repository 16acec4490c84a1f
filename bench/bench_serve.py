"""Load test of `toolpen serve`: requests per second, p50 and p99 latency of a trivial tool.

Starts one, then two `toolpen serve` replicas sharing a store, and sends ``--requests`` calls of a
tool that returns a constant from ``--threads`` client threads (keep-alive connections, each
thread its own session, alternating replicas). Every call is a real session call: the session
lock, the call record, a sandbox worker, the atomic commit.

    .venv/bin/python bench/bench_serve.py --store postgresql://toolpen:toolpen@127.0.0.1:55432/toolpen
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_server_replicas import Replica, start, stop_all  # noqa: E402  (the tests' replica launcher)

PING = '''
def ping() -> str:
    """Answers pong."""
    return "pong"
'''


def run(replicas: list[Replica], key: str, total: int, threads: int) -> tuple[float, list[float], int]:
    """Send ``total`` calls from ``threads`` threads; (seconds, latencies, errors)."""
    run_id = uuid.uuid4().hex[:8]

    def client(thread: int) -> tuple[list[float], int]:
        latencies, errors = [], 0
        with requests.Session() as http:
            http.headers["Authorization"] = f"Bearer {key}"
            for i in range(thread, total, threads):
                url = f"{replicas[i % len(replicas)].url}/v1/sessions/bench-{run_id}-{thread}/calls"
                started = time.perf_counter()
                response = http.post(url, json={"tool": "ping", "args": {}}, timeout=60)
                latencies.append(time.perf_counter() - started)
                errors += response.status_code != 200 or not response.json()["success"]
        return latencies, errors

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(client, range(threads)))
    elapsed = time.perf_counter() - started
    return elapsed, [lat for lats, _ in results for lat in lats], sum(errors for _, errors in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", action="append", help="store URL (repeatable); default a SQLite file")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--replicas", type=int, nargs="+", default=[1, 2])
    options = parser.parse_args()
    key = f"bench-key-{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "tools").mkdir()
        (work / "tools" / "ping.py").write_text(PING)
        stores = options.store or [f"sqlite:///{work / 'sessions.db'}"]
        print(
            f"{'store':<10} {'replicas':>8} {'requests':>8} {'threads':>7} {'rps':>7} {'p50 ms':>7} {'p99 ms':>7} errors"
        )
        for store in stores:
            for count in options.replicas:
                replicas = start(store, work / "tools", {key: f"bench-{uuid.uuid4().hex[:8]}"}, work, count)
                try:
                    run(replicas, key, 20 * options.threads, options.threads)  # warm up
                    elapsed, latencies, errors = run(replicas, key, options.requests, options.threads)
                finally:
                    stop_all(replicas)
                cuts = statistics.quantiles(latencies, n=100)
                print(
                    f"{store.split(':')[0]:<10} {count:>8} {len(latencies):>8} {options.threads:>7} "
                    f"{len(latencies) / elapsed:>7.0f} {cuts[49] * 1000:>7.1f} {cuts[98] * 1000:>7.1f} {errors}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
