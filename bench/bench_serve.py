"""Load test of `toolpen serve`: requests per second, p50 and p99 latency of a trivial tool.

Starts one, then two `toolpen serve` replicas sharing a store, and sends ``--requests`` calls of a
tool that returns a constant from ``--threads`` client threads (keep-alive connections, each
thread its own session, alternating replicas). Every call is a real session call: the session
lock, the call record, a sandbox worker, the atomic commit.

Then, on one replica, a session's length: one session is filled with ``--earlier`` calls (1,000),
and ``--session-requests`` calls are timed in it, taking turns with as many in a fresh session;
one client thread, so requests/s is the session's own rate (its calls run one at a time, under
its lock) and p50/p99 the latency of one call. ``--replicas`` with no count skips the first table.

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


def call(http: requests.Session, replica: Replica, session: str) -> tuple[float, bool]:
    """One call of ``ping`` in ``session``: (seconds, whether it succeeded)."""
    started = time.perf_counter()
    response = http.post(
        f"{replica.url}/v1/sessions/{session}/calls", json={"tool": "ping", "args": {}}, timeout=60
    )
    return time.perf_counter() - started, response.status_code == 200 and response.json()["success"]


def client_session(key: str) -> requests.Session:
    """A keep-alive HTTP client with the tenant's key."""
    http = requests.Session()
    http.headers["Authorization"] = f"Bearer {key}"
    return http


def run(
    replicas: list[Replica], key: str, total: int, threads: int, session: str | None = None
) -> tuple[float, list[float], int]:
    """Send ``total`` calls from ``threads`` threads, each in a session of its own unless
    ``session`` is given; (seconds, latencies, errors)."""
    run_id = uuid.uuid4().hex[:8]

    def client(thread: int) -> tuple[list[float], int]:
        latencies, errors = [], 0
        with client_session(key) as http:
            for i in range(thread, total, threads):
                latency, ok = call(http, replicas[i % len(replicas)], session or f"bench-{run_id}-{thread}")
                latencies.append(latency)
                errors += not ok
        return latencies, errors

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(client, range(threads)))
    elapsed = time.perf_counter() - started
    return elapsed, [lat for lats, _ in results for lat in lats], sum(errors for _, errors in results)


HEADER = f"{'requests':>8} {'rps':>7} {'p50 ms':>7} {'p99 ms':>7} errors"


def report(store: str, label: str, elapsed: float, latencies: list[float], errors: int, width: int) -> None:
    """One row: the store, ``label`` (right-aligned in ``width``), then the figures."""
    cuts = statistics.quantiles(latencies, n=100)
    print(
        f"{store.split(':')[0]:<10} {label:>{width}} {len(latencies):>8} {len(latencies) / elapsed:>7.0f} "
        f"{cuts[49] * 1000:>7.1f} {cuts[98] * 1000:>7.1f} {errors}",
        flush=True,
    )


def session_length(
    replica: Replica, key: str, earlier: int, timed: int
) -> list[tuple[str, tuple[float, list[float], int]]]:
    """``timed`` calls in a fresh session and as many in one filled with ``earlier`` calls first,
    taking turns (so both see the same load), from one client thread."""
    fresh, grown = f"fresh-{uuid.uuid4().hex[:8]}", f"grown-{uuid.uuid4().hex[:8]}"
    _, _, errors = run([replica], key, earlier, 4, session=grown)  # calls queue on the session's lock
    if errors:
        raise SystemExit(f"{errors} of the {earlier} earlier calls failed")
    latencies: dict[str, list[float]] = {fresh: [], grown: []}
    failed = dict.fromkeys(latencies, 0)
    with client_session(key) as http:
        for _ in range(timed):
            for session in latencies:
                latency, ok = call(http, replica, session)
                latencies[session].append(latency)
                failed[session] += not ok
    # one thread: a session's requests/s is its calls over the time they took
    return [
        (label, (sum(latencies[session]), latencies[session], failed[session]))
        for label, session in [("0 (fresh)", fresh), (f"{earlier:,}", grown)]
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", action="append", help="store URL (repeatable); default a SQLite file")
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--replicas", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--earlier", type=int, default=1000, help="calls made in the grown session first")
    parser.add_argument("--session-requests", type=int, default=200, help="calls timed in each session")
    options = parser.parse_args()
    key = f"bench-key-{uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "tools").mkdir()
        (work / "tools" / "ping.py").write_text(PING)
        stores = options.store or [f"sqlite:///{work / 'sessions.db'}"]
        tenant = {key: f"bench-{uuid.uuid4().hex[:8]}"}
        if options.replicas:
            print(f"{options.threads} client threads, each its own session")
            print(f"{'store':<10} {'replicas':>8} {HEADER}")
        for store in stores:
            for count in options.replicas:
                replicas = start(store, work / "tools", tenant, work, count)
                try:
                    run(replicas, key, 20 * options.threads, options.threads)  # warm up
                    measured = run(replicas, key, options.requests, options.threads)
                finally:
                    stop_all(replicas)
                report(store, str(count), *measured, 8)
        print("one replica, one client thread, one session")
        print(f"{'store':<10} {'earlier calls':>13} {HEADER}")
        for store in stores:
            replicas = start(store, work / "tools", tenant, work, 1)
            try:
                results = session_length(replicas[0], key, options.earlier, options.session_requests)
            finally:
                stop_all(replicas)
            for label, measured in results:
                report(store, label, *measured, 13)


if __name__ == "__main__":
    main()
