"""Where a single-use call's CPU goes, and what a worker touches (``python bench/bench_worker.py``).

CPU time is counted rather than wall time, so that the figures hold on a busy machine: for
``CALLS`` single-use calls of a trivial tool, one after another (``--threads 8``: eight callers
at once, the load of issue 14's throughput goal), the CPU per call of the host
process (``WorkerPool.run`` and its zygote-reading thread), of the zygote (forking, reaping)
and of the workers (from the fork to their exit: the reaped children in ``/proc/<pid>/stat`` of the
zygote and of its tool images, which fork their tools' workers; an image's own CPU counts with the
zygote's), and the page faults per worker. A ready worker's own counters
(``/proc/<worker>/stat``) give its faults before any job. Unjailed pools (``--no-jail``) need
``allow_weak_isolation``. ``--libraries`` warms a tool importing numpy and protobuf too (the
``ces`` extra), which the zygote then loads.

``--floor`` measures what no change to the worker can remove: this process warms itself as the
zygote does (same imports, same warm-up tools; with ``--libraries``, numpy's and protobuf's too),
then forks children that exit at once, and children that run the idle worker's no-op call first
(``worker.prepare``'s path) and exit.
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import threading
import time
from collections.abc import Callable

from bench_pool import JOB, LIMITS, SOURCE, no_rpc

from sandbox.messages import Call
from sandbox.process.forking import fork, reseed
from sandbox.process.pool import WorkerPool

CALLS = 1000
LIBRARIES = "import numpy\nfrom google.protobuf import struct_pb2\n"
"""A source importing the ``ces`` extra's libraries: warming it makes the zygote load them."""
TICK = os.sysconf("SC_CLK_TCK")


def zygote_pid(pool: WorkerPool) -> int:
    """The zygote's pid on the host: the pool's process, or, jailed, the child of the bubblewrap
    process below it (the pool's process may be a launcher above bubblewrap)."""
    pid = pool._zygote.process.pid
    if not getattr(pool._zygote, "jailed", False):
        return pid
    while True:
        with open(f"/proc/{pid}/comm") as name:
            jail = name.read().strip() == "bwrap"
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            pid = int(children.read().split()[0])
        if jail:
            return pid


def stat(pid: int) -> list[int]:
    """minflt, utime, stime, cminflt, cutime, cstime of ``/proc/<pid>/stat``."""
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    # after the command: state(0) ppid pgrp session tty tpgid flags minflt(7) cminflt(8) majflt cmajflt
    # utime(11) stime(12) cutime(13) cstime(14)
    return [int(fields[i]) for i in (7, 11, 12, 8, 13, 14)]


def forkers(zygote: int) -> list[int]:
    """The zygote and its tool images (its children that have children: an image keeps a ready worker)."""
    with open(f"/proc/{zygote}/task/{zygote}/children") as children:
        pids = [int(pid) for pid in children.read().split()]
    images = []
    for pid in pids:
        with open(f"/proc/{pid}/task/{pid}/children") as grandchildren:
            if grandchildren.read().split():
                images.append(pid)
    return [zygote, *images]


def forkers_stat(zygote: int) -> list[int]:
    """``stat``'s fields summed over the zygote and its tool images (the images outlive the run)."""
    return [sum(column) for column in zip(*(stat(pid) for pid in forkers(zygote)), strict=True)]


def ready_worker_faults(pool: WorkerPool, zygote: int) -> int:
    """Minor page faults of a ready (idle) worker since its fork: the tool image's, if the tool has one."""
    time.sleep(0.5)
    forker = forkers(zygote)[-1]
    with open(f"/proc/{forker}/task/{forker}/children") as children:
        worker = int(children.read().split()[-1])
    return stat(worker)[0]


def forks(count: int, child: Callable[[], object]) -> tuple[float, float, float]:
    """CPU ms per fork in this process and in the child, and the child's page faults (``count`` forks)."""
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    self_before = resource.getrusage(resource.RUSAGE_SELF)
    for _ in range(count):
        pid = fork()  # as the zygote forks: without Python's at-fork handlers, then the reseed
        if pid == 0:
            code = 1
            try:
                reseed()
                child()
                code = 0
            finally:
                os._exit(code)
        if os.waitpid(pid, 0)[1] != 0:  # a child that failed would measure nothing
            raise RuntimeError("a floor child failed")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    parent = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (parent.ru_utime + parent.ru_stime - self_before.ru_utime - self_before.ru_stime) / count
    child_cpu = (
        children.ru_utime + children.ru_stime - children_before.ru_utime - children_before.ru_stime
    ) / count
    return cpu * 1e3, child_cpu * 1e3, (children.ru_minflt - children_before.ru_minflt) / count


def floor(count: int, *, libraries: bool) -> None:
    """Fork and exit of a process warmed as the zygote is, with and without the idle worker's no-op call."""
    from sandbox.bridges.proxies import RpcClient
    from sandbox.language.namespace import install_process_hooks
    from sandbox.process.warmup import preload, preload_for, settle, warm_up_preparation
    from sandbox.process.worker import prepare, run_warm_up

    install_process_hooks()
    preload()
    install_process_hooks(worker=True)
    run_warm_up()
    warm_up_preparation()
    if libraries:
        preload_for(LIBRARIES)
    settle()
    with open("/proc/self/smaps_rollup") as rollup:
        anonymous = next(int(line.split()[1]) for line in rollup if line.startswith("Anonymous:"))
    print(f"{'anonymous memory of the warm process (MiB)':<52} {anonymous / 1024:8.1f}")

    rpc = RpcClient(socket.socketpair()[0])  # the no-op calls nothing through it

    def prepared() -> None:
        prepare(rpc, base_vm=1 << 40, reuse=False)

    for label, child in (("fork, exit", lambda: None), ("fork, no-op call, exit", prepared)):
        parent, child_cpu, faults = forks(count, child)
        print(f"{label + ': CPU ms parent, child; faults':<52} {parent:8.2f} {child_cpu:8.2f} {faults:8.0f}")


def call_times(pool: WorkerPool, count: int) -> None:
    """``count`` calls of the trivial tool, one after another."""
    for _ in range(count):
        assert pool.run(Call.from_dict(JOB), LIMITS, no_rpc).output == 3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-jail", action="store_true", help="measure without bubblewrap")
    parser.add_argument("--floor", action="store_true", help="fork and exit of a warm process alone")
    parser.add_argument("--libraries", action="store_true", help="numpy and protobuf too (ces extra)")
    parser.add_argument("--calls", type=int, default=CALLS)
    parser.add_argument(
        "--threads", type=int, default=1, help="callers at once (8: the throughput goal's load)"
    )
    options = parser.parse_args()
    if options.floor:
        floor(options.calls, libraries=options.libraries)
        return
    unjailed = {"allow_weak_isolation": True, "bwrap": "/nonexistent/bwrap"} if options.no_jail else {}
    with WorkerPool(size=2, **unjailed) as pool:
        pool.warm(SOURCE)
        if options.libraries:
            pool.warm(LIBRARIES)
        for _ in range(20):
            pool.run(Call.from_dict(JOB), LIMITS, no_rpc)
        zygote = zygote_pid(pool)
        idle = ready_worker_faults(pool, zygote)
        host_before = resource.getrusage(resource.RUSAGE_SELF)
        zygote_before = forkers_stat(zygote)
        started = time.perf_counter()
        callers = [
            threading.Thread(target=call_times, args=(pool, options.calls // options.threads))
            for _ in range(options.threads)
        ]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        wall = time.perf_counter() - started
        time.sleep(0.5)  # the last workers exit and are reaped
        host_after = resource.getrusage(resource.RUSAGE_SELF)
        zygote_after = forkers_stat(zygote)
    calls = options.calls // options.threads * options.threads
    host = (host_after.ru_utime + host_after.ru_stime - host_before.ru_utime - host_before.ru_stime) / calls
    delta = [after - before for after, before in zip(zygote_after, zygote_before, strict=True)]
    zygote_cpu = (delta[1] + delta[2]) / TICK / calls
    workers_cpu = (delta[4] + delta[5]) / TICK / calls
    print(f"{f'single-use calls, {options.threads} at a time':<44} {calls:>8}")
    print(f"{'wall time per call (ms)':<44} {wall / calls * 1e3:8.2f}")
    print(f"{'CPU per call: host (ms)':<44} {host * 1e3:8.2f}")
    print(f"{'CPU per call: zygote and images (ms)':<44} {zygote_cpu * 1e3:8.2f}")
    print(f"{'CPU per call: worker, fork to exit (ms)':<44} {workers_cpu * 1e3:8.2f}")
    print(f"{'CPU per call: all (ms)':<44} {(host + zygote_cpu + workers_cpu) * 1e3:8.2f}")
    print(f"{'page faults per worker, fork to exit':<44} {delta[3] / calls:8.0f}")
    print(f"{'page faults of a ready worker (before a job)':<44} {idle:8d}")
    print(f"{'page faults per fork in the zygote, images':<44} {delta[0] / calls:8.1f}")


if __name__ == "__main__":
    main()
