"""Pool latency, throughput and idle worker memory (plain script: ``python bench/bench_pool.py``).

Measures ``WorkerPool.run`` on a trivial tool: p50/p99 in single-use and reuse mode, calls per
second with 8 threads, and the RSS and PSS of an idle pre-forked worker; and, as the floor of any
call to another process, a round trip of the same frames (the job, then its reply) to a forked
process that only echoes them, at the same pace.
"""

from __future__ import annotations

import os
import socket
import statistics
import threading
import time
from collections.abc import Callable

from sandbox.common.limits import Limits
from sandbox.messages import Call, Done
from sandbox.process.pool import WorkerPool
from sandbox.wire import recv_frame, send_frame

SOURCE = "def add(a: int, b: int) -> int:\n    return a + b\n"
JOB = {"source": SOURCE, "entry": "add", "args": {"a": 1, "b": 2}, "context": {"state": {}}}
LIMITS = Limits()
CALLS = 500
THREADS = 8


def no_rpc(target: str, method: str, params: dict) -> None:
    raise RuntimeError("no rpc in this benchmark")


def latencies(pool: WorkerPool, pause: float) -> list[float]:
    times = []
    for _ in range(CALLS):
        start = time.perf_counter()
        assert pool.run(Call.from_dict(JOB), LIMITS, no_rpc).output == 3
        times.append(time.perf_counter() - start)
        time.sleep(pause)
    return sorted(times)


def calls_per_second(call: Callable[[], object], seconds: float = 3.0, threads: int = THREADS) -> float:
    """How many times ``threads`` threads calling ``call`` back to back finish it per second."""
    return concurrent_calls(call, seconds, threads)[0]


def concurrent_calls(
    call: Callable[[], object], seconds: float = 3.0, threads: int = THREADS
) -> tuple[float, list[float]]:
    """Calls per second of ``threads`` threads calling ``call`` back to back for ``seconds``, and
    every call's latency (seconds)."""
    latencies: list[list[float]] = [[] for _ in range(threads)]
    stop = time.monotonic() + seconds

    def loop(index: int) -> None:
        while time.monotonic() < stop:
            start = time.perf_counter()
            call()
            latencies[index].append(time.perf_counter() - start)

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    every = [latency for thread in latencies for latency in thread]
    return len(every) / seconds, every


def round_trips(pause: float) -> list[float]:
    """Latencies of the job's frame sent to a forked process and a reply's frame back: no worker at all."""
    here, there = socket.socketpair()
    reply = Done(3).encode()
    pid = os.fork()
    if pid == 0:
        here.close()
        while recv_frame(there) is not None:
            send_frame(there, reply)
        os._exit(0)
    there.close()
    times = []
    for _ in range(CALLS):
        start = time.perf_counter()
        send_frame(here, Call.from_dict(JOB, LIMITS.to_dict()).encode(), deadline=time.monotonic() + 10)
        recv_frame(here, deadline=time.monotonic() + 10)
        times.append(time.perf_counter() - start)
        time.sleep(pause)
    here.close()
    os.waitpid(pid, 0)
    return sorted(times)


def idle_worker_memory(pool: WorkerPool) -> tuple[int, int]:
    """(RSS, PSS) in KiB of one ready worker (its PSS depends on how many processes share the
    zygote's pages: measure a pool at rest)."""
    pid = str(pool._zygote.process.pid)
    while True:  # down from the zygote (in the jail, from bubblewrap) to its last child, a ready worker
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            below = children.read().split()
        if not below:
            break
        pid = below[-1]
    with open(f"/proc/{pid}/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    with open(f"/proc/{pid}/smaps_rollup") as rollup:
        pss = next(int(line.split()[1]) for line in rollup if line.startswith("Pss:"))
    return rss, pss


def report(name: str, times: list[float]) -> None:
    p50, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
    print(f"{name:<34} {p50 * 1e3:8.3f} {p99 * 1e3:8.3f} {statistics.mean(times) * 1e3:8.3f}")


def main() -> None:
    print(f"{'mode':<34} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}")
    for pause, label in ((0.005, "paced 5 ms"), (0.0, "back to back")):
        report(f"floor (an echo process), {label}", round_trips(pause))
    for reuse in (False, True):
        with WorkerPool(size=2, reuse=reuse) as pool:
            pool.warm(SOURCE)
            for _ in range(20):  # warm-up
                pool.run(Call.from_dict(JOB), LIMITS, no_rpc)
            for pause, label in ((0.005, "paced 5 ms"), (0.0, "back to back")):
                report(f"{'reuse' if reuse else 'single-use'}, {label}", latencies(pool, pause))
            if not reuse:  # at rest: its size ready, none in flight or exiting (more sharers lower the PSS)
                time.sleep(0.5)
                rss, pss = idle_worker_memory(pool)
                print(f"{'  idle worker RSS / PSS (MiB)':<34} {rss / 1024:8.1f} {pss / 1024:8.1f}")
            print(
                f"{'  calls/s with 8 threads':<34} {calls_per_second(lambda: pool.run(Call.from_dict(JOB), LIMITS, no_rpc)):8.0f}"
            )


if __name__ == "__main__":
    main()
