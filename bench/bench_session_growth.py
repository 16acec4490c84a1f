"""Issue 12's session-length figure: does a session call get slower as the session grows?

For each store (``memory://``, a SQLite file, and the PostgreSQL and Redis servers named in
``TOOLPEN_TEST_STORE_URLS`` when it is set, each in a fresh schema or key prefix), one session
is filled with ``SHORT`` calls of a tool that counts in the session's state (two events each),
then ``ROUNDS`` more calls are timed; a second session is filled with ``LONG`` calls and timed
the same way. The tool never reads ``context.events``. Printed: p50 and p99 after each length,
and the ratio of the p50s (the goal: after 400 <= 1.3x after 10).

Run: ``.venv/bin/python bench/bench_session_growth.py``. To measure another checkout's code
(the "before" of a change), put it first on the path: ``PYTHONPATH=/path/to/checkout``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import uuid
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH: it picks the code measured

from runtime import Runtime  # noqa: E402
from tests.conftest import COUNTER  # noqa: E402
from tests.runtime.store.test_store import fresh_postgres, fresh_redis  # noqa: E402

SHORT = 10
LONG = 400
ROUNDS = 40


def p50_p99(samples: list[float]) -> tuple[float, float]:
    """Median and 99th percentile, in milliseconds."""
    ordered = sorted(samples)
    return ordered[len(ordered) // 2] * 1e3, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3


def after(rt: Runtime, earlier: int) -> list[float]:
    """Seconds per call of ``ROUNDS`` calls in a session that had ``earlier`` calls before them."""
    session_id = uuid.uuid4().hex
    for _ in range(earlier):
        assert rt.call("bump", {"n": 1}, session_id=session_id).success
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        result = rt.call("bump", {"n": 1}, session_id=session_id)
        samples.append(time.perf_counter() - start)
        assert result.success, result.error
    return samples


def fresh(url: str) -> AbstractContextManager[str]:
    """``url`` in a new schema (PostgreSQL) or key prefix (Redis), removed afterwards."""
    if url.startswith("postgresql://"):
        return contextmanager(fresh_postgres)(url)
    if url.startswith("redis://"):
        return contextmanager(fresh_redis)(url)
    return nullcontext(url)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        stores = {"memory://": "memory://", "SQLite file": f"sqlite:///{Path(tmp) / 'sessions.db'}"}
        for url in os.environ.get("TOOLPEN_TEST_STORE_URLS", "").split():
            stores["PostgreSQL" if url.startswith("postgresql://") else "Redis"] = url
        print(f"| store | p50 after {SHORT} | p99 | p50 after {LONG} | p99 | ratio of p50s |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for label, template in stores.items():
            with fresh(template) as url, Runtime(store=url) as rt:
                rt.add_tool(COUNTER)
                short = p50_p99(after(rt, SHORT))
                long = p50_p99(after(rt, LONG))
            print(
                f"| {label} | {short[0]:.2f} ms | {short[1]:.2f} ms | {long[0]:.2f} ms | {long[1]:.2f} ms "
                f"| {long[0] / short[0]:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
