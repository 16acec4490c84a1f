"""The host's share of a call: ``rt.call`` minus ``WorkerPool.run``, paced and in instructions.

- ``python bench/bench_host.py``: a trivial single-use call, one every 5 ms, alternately through
  ``rt.call`` and straight through ``rt.pool.run`` with the job and limits ``rt.call`` sent (taken
  from one call), in one process; p50 of wall and CPU time of each, and their difference: what
  the host adds around the worker's exchange.
- ``python bench/bench_host.py --stand-in N``: N calls whose pool answers at once with the
  worker's reply (no worker), for instruction counts that load does not move:
  ``valgrind --tool=callgrind python bench/bench_host.py --stand-in 0`` and ``... 2000``; the
  difference of the totals over 2000 is the host path of one call. ``--sweep`` evicts the caches
  before each call (8 MiB read: a paced call starts cold); with ``--cache-sim=yes
  --LL=2097152,16,64`` the last-level misses of ``--stand-in N --sweep`` minus those of
  ``--stand-in N --sweep --no-call``, over N, estimate a paced call's cold cost.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from runtime import Runtime
from sandbox.common.limits import Limits
from sandbox.messages import Call, Done

TRIVIAL = 'def add(a: int, b: int) -> int:\n    """Adds two numbers."""\n    return a + b\n'
ARGS = {"a": 1, "b": 2}
DONE = {"success": True, "output": 3, "state_delta": {"set": {}, "deleted": []}, "logs": ""}


class StandIn:
    """A pool whose every worker answers at once with ``DONE``, decoded as the pool decodes it."""

    def run(self, job: Call, limits: Limits, rpc: Any) -> Done:
        return Done.decode(DONE)


class Recorder:
    """Passes calls on to the pool, keeping the last job and limits."""

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.sent: tuple[Call, Limits] | None = None

    def run(self, job: Call, limits: Limits, rpc: Any) -> Done:
        self.sent = (job, limits)
        return self.pool.run(job, limits, rpc)


def paced(rt: Runtime, rounds: int) -> None:
    recorder = Recorder(rt.pool)
    rt.executor.pool = recorder  # type: ignore[assignment]
    rt.call("add", ARGS)
    rt.executor.pool = rt.pool
    assert recorder.sent is not None
    job, limits = recorder.sent
    samples: dict[str, list[tuple[float, float]]] = {"rt.call": [], "pool.run": []}
    calls = {
        "rt.call": lambda: rt.call("add", ARGS),
        "pool.run": lambda: rt.pool.run(job, limits, None),
    }
    for _ in range(rounds):
        for label, call in calls.items():
            cpu, wall = time.thread_time(), time.perf_counter()
            call()
            samples[label].append((time.perf_counter() - wall, time.thread_time() - cpu))
            time.sleep(0.005)
    p50 = {
        label: [statistics.median(column) * 1e6 for column in zip(*rows, strict=True)]
        for label, rows in samples.items()
    }
    print("| paced 5 ms, p50 | wall us | CPU us |\n| --- | ---: | ---: |")
    for label, (wall, cpu) in p50.items():
        print(f"| {label} | {wall:.0f} | {cpu:.0f} |")
    (call_wall, call_cpu), (pool_wall, pool_cpu) = p50["rt.call"], p50["pool.run"]
    print(f"| host path (difference) | {call_wall - pool_wall:.0f} | {call_cpu - pool_cpu:.0f} |")


def stand_in(rt: Runtime, rounds: int, sweep: bool, call: bool) -> None:
    rt.executor.pool = StandIn()  # type: ignore[assignment]
    cache_sized = bytearray(8 << 20)
    for _ in range(rounds):
        if sweep:
            cache_sized.find(b"x")
        if call:
            rt.call("add", ARGS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--stand-in", type=int, metavar="N", help="N calls with a pool that answers at once")
    parser.add_argument("--sweep", action="store_true", help="evict the caches before each stand-in call")
    parser.add_argument("--no-call", action="store_true", help="with --stand-in: only the rounds, no call")
    options = parser.parse_args()
    with Runtime() as rt:
        rt.add_tool(TRIVIAL)
        for _ in range(50):  # warm: every path compiled and specialized, as in a long-running host
            rt.call("add", ARGS)
        if options.stand_in is None:
            paced(rt, options.rounds)
        else:
            stand_in(rt, options.stand_in, options.sweep, not options.no_call)


if __name__ == "__main__":
    main()
