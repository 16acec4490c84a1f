"""Tool images (issue 33): CPU per call of the seed sample and of a trivial tool, and the memory of many tools.

``python bench/bench_images.py``: for each walls mode, ``CALLS`` session calls of the seed sample
(``samples/update_customer_loyalty_points.py``: a pydantic model at module level, state written
back) and of ``add(a, b)``, one after another, through ``Runtime.call``; CPU per call of the host
and of every process in the jail (the zygote, the tool images and the workers, read from
``/proc/<pid>/stat``, reaped children included). ``--tools N`` registers N distinct tools (each
with a module-level model) and calls each once, then prints the PSS and RSS of the jail's
processes (``/proc/<pid>/smaps_rollup``). Runs on a tree without tool images too (the baseline).
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from runtime import Runtime

SAMPLE = (Path(__file__).resolve().parents[1] / "samples" / "update_customer_loyalty_points.py").read_text()
TRIVIAL = "def add(a: int, b: int) -> int:\n    return a + b\n"
TICK = os.sysconf("SC_CLK_TCK")
CALLS = 300
ZYGOTE = [b"-m", b"sandbox.process.zygote"]


def descendants(pid: int) -> list[int]:
    """``pid`` and every live process below it."""
    found = [pid]
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as children:
                for child in children.read().split():
                    found.extend(descendants(int(child)))
        except OSError:
            continue
    return found


def tree_cpu(root: int) -> float:
    """CPU seconds of the processes below ``root`` (the zygote's jail), their reaped children included."""
    total = 0
    for pid in descendants(root):
        try:
            with open(f"/proc/{pid}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(fields[i]) for i in (11, 12, 13, 14))
    return total / TICK


def host_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as listing:
            return [int(child) for child in listing.read().split()]
    except OSError:
        return []


def pss_rss(pid: int) -> tuple[int, int]:
    """PSS and RSS of one process in KiB (0, 0 when it is gone)."""
    pss = rss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
                elif line.startswith("Rss:"):
                    rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


def memory(root: int) -> dict[str, tuple[int, float, float]]:
    """By kind of process in the jail (the zygote, its workers, the tool images, their workers):
    how many, and their PSS and RSS in MiB."""
    zygote = root  # the reaper, then bubblewrap, then the zygote
    while children(zygote) and Path(f"/proc/{zygote}/cmdline").read_bytes().split(b"\0")[1:3] != ZYGOTE:
        zygote = children(zygote)[0]
    kinds: dict[str, list[int]] = {
        "zygote": [zygote],
        "zygote's workers": [],
        "tool images": [],
        "images' workers": [],
    }
    for child in children(zygote):
        below = children(child)
        kinds["tool images" if below else "zygote's workers"].append(child)
        kinds["images' workers"].extend(below)
    found = {}
    for kind, pids in kinds.items():
        sizes = [pss_rss(pid) for pid in pids]
        found[kind] = (len(pids), sum(p for p, _ in sizes) / 1024, sum(r for _, r in sizes) / 1024)
    return found


def per_call(rt: Runtime, name: str, args: dict, calls: int) -> tuple[float, float, float]:
    """Host CPU, jail CPU (ms per call) and wall ms per call of ``calls`` session calls of ``name``."""
    root = rt.pool.zygote_pid
    for index in range(10):
        assert rt.call(name, args, session_id="warm", call_id=f"w{index}").success
    time.sleep(0.3)
    host, jail, wall = host_cpu(), tree_cpu(root), time.perf_counter()
    for index in range(calls):
        result = rt.call(name, args, session_id="s", call_id=f"c{index}")
        assert result.success, result.error
    wall = time.perf_counter() - wall
    time.sleep(0.3)  # the last workers exit and are reaped
    return (host_cpu() - host) / calls * 1e3, (tree_cpu(root) - jail) / calls * 1e3, wall / calls * 1e3


def many_tools(count: int, walls: str) -> None:
    with Runtime(store="memory://", walls=walls) as rt:  # type: ignore[arg-type]
        started = time.perf_counter()
        for index in range(count):
            source = (
                "from pydantic import BaseModel\n\n"
                f"class Profile{index}(BaseModel):\n    points: int = {index}\n\n"
                f"def tool_{index}(n: int) -> int:\n    return Profile{index}(points=n).points\n"
            )
            rt.add_tool(source)
        registered = time.perf_counter() - started
        for index in range(count):
            assert rt.call(f"tool_{index}", {"n": index}).output == index
        time.sleep(1.0)
        kinds = memory(rt.pool.zygote_pid)
    print(f"walls={walls} tools={count}: registered in {registered:.1f} s")
    for kind, (processes, pss, rss) in kinds.items():
        print(f"  {kind:<18} {processes:5d} processes, PSS {pss:7.1f} MiB, RSS {rss:7.1f} MiB")
    print(f"  {'all':<18} PSS {sum(k[1] for k in kinds.values()):7.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=CALLS)
    parser.add_argument("--tools", type=int, default=0, help="register this many tools and measure memory")
    parser.add_argument("--walls", default="all,process")
    options = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}")
    for walls in options.walls.split(","):
        if options.tools:
            many_tools(options.tools, walls)
            continue
        with Runtime(store="memory://", walls=walls) as rt:  # type: ignore[arg-type]
            rt.add_tool(SAMPLE)
            rt.add_tool(TRIVIAL)
            for name, args in (
                ("update_customer_loyalty_points", {"points_to_add": 5}),
                ("add", {"a": 1, "b": 2}),
            ):
                host, jail, wall = per_call(rt, name, args, options.calls)
                print(
                    f"walls={walls:<8} {name:<32} CPU/call host {host:5.2f} ms, jail {jail:5.2f} ms,"
                    f" all {host + jail:5.2f} ms; wall {wall:5.2f} ms"
                )


if __name__ == "__main__":
    main()
