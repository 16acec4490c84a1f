"""Issue 3's benchmark, side by side in one run: toolpen against the peers a user would pick.

- latency of a trivial call: plain CPython, RestrictedPython used directly, smolagents'
  ``LocalPythonExecutor``, a subprocess per call, and ``Runtime.call`` (single-use workers,
  paced and back to back; reuse mode);
- a CPU-bound body (primes below 30,000) relative to plain CPython;
- calls per second with 8 threads; memory of an idle worker;
- issue 14's goals as ratios of this run (paced single-use p50 against smolagents' at the same
  pace, calls/s, CPU-bound body against plain CPython, idle PSS).

Method: every figure comes from this one process, so that the machine's load is shared alike;
paced calls (5 ms of sleep after each: a single-use worker is then ready and prepared) of
smolagents and of both toolpen modes are interleaved, 20 of one then 20 of the next, so that
the goal's ratio compares calls made in the same seconds; back-to-back calls do not sleep (a
single-use call then waits for a fork).

Run: ``.venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_call.py``. The two
tools measured use neither pydantic nor the CES classes, so the pools' zygotes do not load them;
with ``--ces`` the runtimes also register a tool building a CES ``Part`` (the zygotes then load
pydantic and the CES classes), with ``--libraries`` (and the ``ces`` extra installed) a tool
importing numpy and protobuf: the figures of pools whose tools use them.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from RestrictedPython import compile_restricted, safe_globals

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_guards import LIMIT, PRIME_COUNTER, plain_cpython, restrictedpython_directly  # noqa: E402
from bench_pool import calls_per_second, idle_worker_memory  # noqa: E402

from runtime import Runtime  # noqa: E402

TRIVIAL = 'def add(a: int, b: int) -> int:\n    """Adds two numbers."""\n    return a + b\n'
PRIMES = PRIME_COUNTER.replace("-> int:\n", '-> int:\n    """Counts primes."""\n', 1)
ROUNDS = 300
CES_TOOL = 'def reply(text: str) -> dict:\n    """Replies."""\n    return Part(text=text).to_json()\n'
LIBRARIES = (
    "import numpy as np\nfrom google.protobuf import struct_pb2\n\n\n"
    'def mean(values: list[float]) -> float:\n    """Averages."""\n    return float(np.mean(values))\n'
)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return ordered[len(ordered) // 2] * 1e3, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3


def timed(call: Callable[[], object], rounds: int = ROUNDS, pause: float = 0.0) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
        if pause:
            time.sleep(pause)
    return samples


def timed_interleaved(
    calls: dict[str, Callable[[], object]], rounds: int = ROUNDS, pause: float = 0.0, block: int = 20
) -> dict[str, list[float]]:
    """``timed`` for several peers in turn, ``block`` calls of one then of the next (each keeps
    its pace), the order rotating: the machine's drift over the run falls on all alike."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    names = list(calls)
    for turn in range(-(-rounds // block)):
        for name in names[turn % len(names) :] + names[: turn % len(names)]:
            samples[name] += timed(calls[name], rounds=block, pause=pause)
    return samples


def trivial_plain() -> Callable[[], object]:
    def call() -> object:
        namespace: dict[str, object] = {}
        exec(compile(TRIVIAL, "<plain>", "exec"), namespace)
        return namespace["add"](1, 2)  # type: ignore[operator]

    return call


def trivial_restrictedpython() -> Callable[[], object]:
    def call() -> object:
        namespace = dict(safe_globals)
        exec(compile_restricted(TRIVIAL, "<restricted>", "exec"), namespace)
        return namespace["add"](1, 2)

    return call


def smolagents_executor() -> Callable[[str], object]:
    from smolagents.local_python_executor import LocalPythonExecutor

    executor = LocalPythonExecutor(additional_authorized_imports=[])
    executor.send_tools({})
    return executor


def trivial_smolagents() -> Callable[[], object]:
    executor = smolagents_executor()
    return lambda: executor(TRIVIAL + "add(1, 2)")


def trivial_subprocess() -> Callable[[], object]:
    code = TRIVIAL + "print(add(1, 2))"
    return lambda: subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, check=True)


def row(label: str, samples: list[float], note: str = "") -> float:
    p50, p99 = percentiles(samples)
    print(f"| {label} | {p50:.3f} | {p99:.3f} | {note} |")
    return p50


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--ces", action="store_true", help="register a tool using the CES classes (pydantic) too"
    )
    parser.add_argument("--libraries", action="store_true", help="register a numpy and protobuf tool too")
    options = parser.parse_args()
    print("| trivial call | p50 ms | p99 ms | note |\n| --- | ---: | ---: | --- |")
    row("plain CPython (exec + call)", timed(trivial_plain()))
    row("RestrictedPython directly (compile + exec + call)", timed(trivial_restrictedpython()))
    smolagents = trivial_smolagents()
    row("smolagents LocalPythonExecutor, back to back", timed(smolagents), "in-process, no process wall")
    row("subprocess per call (python -I -S -c)", timed(trivial_subprocess(), rounds=40), "process wall, cold")
    results: dict[str, float] = {}
    modes = {False: "single-use (default)", True: "reuse"}
    with Runtime(reuse_workers=False) as single_use, Runtime(reuse_workers=True) as reused:
        runtimes = {False: single_use, True: reused}
        for rt in runtimes.values():
            rt.add_tool(TRIVIAL)
            rt.add_tool(PRIMES)
            if options.ces:
                rt.add_tool(CES_TOOL)
            if options.libraries:
                rt.add_tool(LIBRARIES)
            timed(lambda rt=rt: rt.call("add", {"a": 1, "b": 2}), rounds=30)
        paced = timed_interleaved(
            {"smolagents": smolagents}
            | {
                modes[reuse]: lambda rt=rt: rt.call("add", {"a": 1, "b": 2}) for reuse, rt in runtimes.items()
            },
            pause=0.005,
        )
        smolagents_paced = row(
            "smolagents LocalPythonExecutor, paced 5 ms", paced["smolagents"], "in-process, no process wall"
        )
        for reuse, rt in runtimes.items():
            mode = modes[reuse]
            results[f"{mode} paced p50"] = row(f"toolpen rt.call, {mode}, paced 5 ms", paced[mode])
            row(
                f"toolpen rt.call, {mode}, back to back",
                timed(lambda rt=rt: rt.call("add", {"a": 1, "b": 2})),
            )
            if not reuse:  # at rest: its size ready, none in flight or exiting (more sharers lower the PSS)
                time.sleep(0.5)
                rss, pss = idle_worker_memory(rt.pool)
                results["idle worker RSS MiB"], results["idle worker PSS MiB"] = rss / 1024, pss / 1024
            results[f"{mode} calls/s, 8 threads"] = calls_per_second(
                lambda rt=rt: rt.call("add", {"a": 1, "b": 2})
            )
            primes = timed(lambda rt=rt: rt.call("count_primes", {"limit": LIMIT}), rounds=5)
            results[f"{mode} primes"] = min(primes)

    plain = min(timed(lambda: plain_cpython()(LIMIT), rounds=5))
    restricted = min(timed(lambda: restrictedpython_directly()(LIMIT), rounds=5))
    print(f"\n| primes below {LIMIT:,} | best of 5, ms | x plain CPython |\n| --- | ---: | ---: |")
    for label, seconds in (
        ("plain CPython", plain),
        ("RestrictedPython directly", restricted),
        ("toolpen rt.call, single-use (whole call)", results["single-use (default) primes"]),
        ("toolpen rt.call, reuse (whole call)", results["reuse primes"]),
    ):
        print(f"| {label} | {seconds * 1e3:.1f} | {seconds / plain:.2f} |")
    executor = smolagents_executor()
    small = 3_000
    smol_small = min(timed(lambda: executor(PRIME_COUNTER + f"count_primes({small})"), rounds=3))
    plain_small = min(timed(lambda: plain_cpython()(small), rounds=5))
    print(
        f"| smolagents LocalPythonExecutor (below {small:,}, to keep the run short) | "
        f"{smol_small * 1e3:.1f} | {smol_small / plain_small:.0f} |"
    )
    print("\n| throughput and memory | value |\n| --- | ---: |")
    for key in ("single-use (default) calls/s, 8 threads", "reuse calls/s, 8 threads"):
        print(f"| {key} | {results[key]:.0f} |")
    print(
        f"| idle worker RSS / PSS | {results['idle worker RSS MiB']:.1f} / {results['idle worker PSS MiB']:.1f} MiB |"
    )
    single_use = "single-use (default)"
    print("\n| goal (issue 14) | this run | goal |\n| --- | ---: | ---: |")
    print(
        f"| paced single-use p50 / smolagents paced p50 | "
        f"{results[f'{single_use} paced p50'] / smolagents_paced:.2f}x | <= 1.0x |"
    )
    print(f"| single-use calls/s, 8 threads | {results[f'{single_use} calls/s, 8 threads']:.0f} | >= 500 |")
    print(
        f"| CPU-bound body, single-use / plain CPython | {results[f'{single_use} primes'] / plain:.2f}x | <= 2x |"
    )
    print(f"| idle pre-forked worker PSS | {results['idle worker PSS MiB']:.1f} MiB | <= 8 MiB |")


if __name__ == "__main__":
    main()
