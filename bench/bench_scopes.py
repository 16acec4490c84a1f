"""Calls per second with 10 sessions in parallel: session-only calls against shared-scope writes.

Each of 10 threads calls tools in its own session (all sessions of one user of one app), back
to back, for a few seconds per case:

- ``session``: ``context.state["n"] += 1`` (a session key only);
- ``shared``: the same plus ``app:total`` and ``user:count`` (keys every session shares).

After each case it prints the calls that succeeded and the final ``app:total``: they are equal
when no update was lost. Workers are reused (trusted code), so that the store and its locks, not
forking a worker, bound the figures. Compare code versions by running it with another tree first
on ``PYTHONPATH``:

    PYTHONPATH=. .venv/bin/python bench/bench_scopes.py [--seconds 3] [STORE_URL ...]

Without URLs it measures ``memory://`` and an SQLite file in a temporary folder.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
import uuid
from pathlib import Path

from runtime import Runtime

SESSIONS = 10

BUMP = '''
def bump() -> int:
    """Counts this session's calls."""
    context.state["n"] = context.state.get("n", 0) + 1
    return context.state["n"]
'''

BUMP_SHARED = '''
def bump_shared() -> int:
    """Counts this session's calls, the app's and the user's."""
    context.state["n"] = context.state.get("n", 0) + 1
    context.state["app:total"] = context.state.get("app:total", 0) + 1
    context.state["user:count"] = context.state.get("user:count", 0) + 1
    return context.state["app:total"]
'''


def measure(rt: Runtime, tool: str, seconds: float) -> tuple[float, int, int]:
    """(calls/s, successful calls, failed calls) of ``SESSIONS`` threads, one session each."""
    run = uuid.uuid4().hex[:8]
    succeeded = [0] * SESSIONS
    failed = [0] * SESSIONS
    stop = time.monotonic() + seconds

    def loop(index: int) -> None:
        while time.monotonic() < stop:
            result = rt.call(tool, {}, session_id=f"{run}-{index}")
            if result.success:
                succeeded[index] += 1
            else:
                failed[index] += 1

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(SESSIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(succeeded) / seconds, sum(succeeded), sum(failed)


def bench(url: str, seconds: float) -> None:
    app = f"bench-{uuid.uuid4().hex[:8]}"  # a fresh app: its shared keys start empty
    with Runtime(store=url, reuse_workers=True, pool_size=4, app_name=app) as rt:
        rt.add_tool(BUMP)
        rt.add_tool(BUMP_SHARED)
        for _ in range(20):  # warm-up: workers and connections
            rt.call("bump", {}, session_id=f"warm-{app}")
        for tool, label in (("bump", "session keys only"), ("bump_shared", "session + app: + user:")):
            before = rt.store.get_or_create_session(app, "user", f"probe-{app}").state.get("app:total", 0)
            per_second, succeeded, failed = measure(rt, tool, seconds)
            total = rt.store.require_session(f"probe-{app}").state.get("app:total", 0) - before
            lost = f"app:total +{total} for {succeeded} calls" if tool == "bump_shared" else ""
            print(f"| {url.split('://')[0]} | {label} | {per_second:,.0f} | {failed} | {lost} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("urls", nargs="*")
    parser.add_argument("--seconds", type=float, default=3.0)
    options = parser.parse_args()
    print(f"| store | {SESSIONS} sessions in parallel | calls/s | failed | app:total |")
    print("| --- | --- | ---: | ---: | --- |")
    with tempfile.TemporaryDirectory() as folder:
        urls = options.urls or ["memory://", f"sqlite:///{Path(folder) / 'bench.db'}"]
        for url in urls:
            bench(url, options.seconds)


if __name__ == "__main__":
    main()
