"""Issue 33's benchmark: toolpen beside the fastest sandboxes a user would pick, every peer in one run.

The peers, each running the same trivial ``add(a, b)`` tool:

- toolpen ``rt.call``, default walls (RestrictedPython and the process sandbox), single-use
  workers; and ``walls="process"`` (the process sandbox alone);
- pydantic-monty, pydantic's interpreter of a Python subset written in Rust, used as its README
  does: a pool of its subprocess workers (``Monty()``), a fresh session checked out for every call
  (``pool.checkout()``), the tool's source and its call fed in (``feed_run``, the arguments as
  ``inputs``). The pool hands the same few workers one session after another: no process is
  started per call;
- smolagents' ``LocalPythonExecutor``: an interpreter of the AST in this process, no process wall;
- plain CPython: ``exec`` of the source and the call, no sandbox at all.

Parts (``parts``, any of them, ``peers`` by default):

- ``peers``: paced p50 (5 ms of sleep after each call), back-to-back p50 and calls/s with 8
  threads of each peer; the paced and back-to-back calls of all peers interleaved, 20 of one then
  20 of the next, so that every peer's calls fall in the same seconds. Then the seed sample
  (``samples/update_customer_loyalty_points.py``: a pydantic model defined at module level, the
  state written back) as the realistic case: toolpen in a session under each walls mode, against
  a trivial call in a session of the same runtime; plain CPython executing its whole source and
  the call; smolagents with ``pydantic`` and ``typing`` opened to its imports (in process); monty's
  own error when fed it. Then a CPU-bound body against plain CPython, and issue 33's call goals as
  figures of this run.
- ``tools``: the same figures of toolpen with 10, 100 and 1,000 tools registered (each a distinct
  small function), calling ``add`` and calling the tools in turn; the peers have no registry.
- ``callers``: calls/s and p50 latency of every peer with 1, 2, 4, 8, 16, 32 and 64 threads
  calling back to back, the peers in turn at each count.

Run: ``.venv/bin/pip install -e ".[bench]" && .venv/bin/python bench/bench_peers.py peers tools
callers`` (about three minutes on the 2-core machine); to measure another checkout's code put it
first on ``PYTHONPATH``. The load average is printed before and after: quote it with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import itertools
import os
import resource
import statistics
import sys
import time
import types
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent))

from bench_call import PRIMES, TRIVIAL, timed, timed_interleaved  # noqa: E402
from bench_guards import LIMIT, plain_cpython  # noqa: E402
from bench_pool import concurrent_calls  # noqa: E402
from bench_scaling import numbered_tool  # noqa: E402
from bench_worker import TICK, stat, zygote_pid  # noqa: E402

from runtime import Runtime  # noqa: E402

SEED = Path(__file__).resolve().parents[1] / "samples" / "update_customer_loyalty_points.py"
ARGS = {"a": 1, "b": 2}
PACE = 0.005
ROUNDS = 300
THREADS = 8
SECONDS = 2.0
TOOL_COUNTS = (10, 100, 1000)
CALLER_COUNTS = (1, 2, 4, 8, 16, 32, 64)
WALLS = {"toolpen, default walls": "all", 'toolpen, walls="process"': "process"}

Call = Callable[[], object]


class Context:
    """What a CES tool reads as ``context``: here only its session state."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {}


def p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1e3


def p99_ms(samples: list[float]) -> float:
    return sorted(samples)[int(len(samples) * 0.99)] * 1e3


def ms(value: float) -> str:
    """Milliseconds, or microseconds below 0.1 ms."""
    return f"{value:.3f} ms" if value >= 0.1 else f"{value * 1e3:.1f} us"


def toolpen_call(rt: Runtime, name: str = "add", args: dict[str, Any] = ARGS, **options: Any) -> Call:
    """A call of ``name`` that fails loudly (a benchmark of failed calls measures nothing)."""

    def call() -> object:
        result = rt.call(name, args, **options)
        assert result.success, result.error
        return result.output

    return call


def monty_call(pool: Any, source: str, call: str, inputs: dict[str, Any]) -> Call:
    """A call as pydantic-monty's README makes one: a session checked out of the pool, fed the
    source and the call."""
    code = f"{source}\n{call}"

    def run() -> object:
        with pool.checkout() as session:
            return session.feed_run(code, inputs=inputs)

    return run


def plain_call(source: str, call: Callable[[dict[str, Any]], object], context: bool = False) -> Call:
    """``exec`` of the whole (compiled) source in a fresh module, as an import runs it (pydantic
    resolves a model's annotations in its module), then ``call`` of the module's names."""
    code = compile(source, "<plain>", "exec")

    def run() -> object:
        module = sys.modules["plain_tool"] = types.ModuleType("plain_tool")
        if context:
            module.context = Context()  # type: ignore[attr-defined]
        module.print = functools.partial(print, file=io.StringIO())  # type: ignore[attr-defined]
        exec(code, module.__dict__)  # its prints kept, as every peer keeps them
        return call(module.__dict__)

    return run


def smolagents_call(source: str, imports: tuple[str, ...] = ()) -> Call:
    """smolagents' executor as ``bench_call`` sets it up, ``imports`` added to those it allows."""
    from smolagents.local_python_executor import LocalPythonExecutor

    executor = LocalPythonExecutor(additional_authorized_imports=list(imports))
    executor.send_tools({})
    executor.send_variables({"context": Context()})
    return lambda: executor(source)


def open_monty() -> Any:
    try:
        from pydantic_monty import Monty
    except ImportError:
        raise SystemExit('pydantic-monty is missing: pip install -e ".[bench]"') from None
    return Monty()


def load() -> str:
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def table(header: str, rows: dict[str, list[str]]) -> None:
    columns = header.count("|") - 1
    print(f"\n{header}\n|" + " --- |" + " ---: |" * (columns - 1))
    for label, cells in rows.items():
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def trivial_peers(runtimes: dict[str, Runtime], monty: Any) -> dict[str, Call]:
    return {label: toolpen_call(rt) for label, rt in runtimes.items()} | {
        "pydantic-monty, fresh session per call": monty_call(monty, TRIVIAL, "add(a, b)", ARGS),
        "smolagents, in process": smolagents_call(TRIVIAL + "add(1, 2)"),
        "plain CPython (exec + call)": plain_call(TRIVIAL, lambda namespace: namespace["add"](1, 2)),
    }


def peers(runtimes: dict[str, Runtime], monty: Any) -> None:
    calls = trivial_peers(runtimes, monty)
    for call in calls.values():
        timed(call, rounds=30)
    paced = timed_interleaved(calls, rounds=ROUNDS, pause=PACE)
    back_to_back = timed_interleaved(calls, rounds=ROUNDS)
    per_second = {label: concurrent_calls(call, SECONDS, THREADS)[0] for label, call in calls.items()}
    table(
        "| `add(1, 2)` | paced p50 (a call every 5 ms) | back to back p50 | calls/s, 8 threads |",
        {
            label: [
                ms(p50_ms(paced[label])),
                ms(p50_ms(back_to_back[label])),
                f"{per_second[label]:,.0f}",
            ]
            for label in calls
        },
    )
    with contextlib.ExitStack() as stack:  # its own runtimes: their zygotes load pydantic for it
        seed = seed_sample(walled_runtimes(stack, TRIVIAL, SEED.read_text()), monty)
    primes = {
        label: min(timed(toolpen_call(rt, "count_primes", {"limit": LIMIT}), 5))
        for label, rt in runtimes.items()
    }
    plain_primes = min(timed(lambda: plain_cpython()(LIMIT), rounds=5))
    default = next(iter(runtimes))
    table(
        "| issue 33's goal (default walls, this run) | this run | goal |",
        {
            "seed sample's call / a trivial call, in a session, paced": [
                f"{seed['seed'] / seed['trivial']:.2f}x",
                "<= 1.5x",
            ],
            "a trivial call back to back, p50": [f"{p50_ms(back_to_back[default]):.3f} ms", "<= 1.2 ms"],
            "calls/s, 8 threads": [f"{per_second[default]:,.0f}", ">= 800"],
            "paced p50 / pydantic-monty's paced p50": [
                f"{statistics.median(paced[default]) / statistics.median(paced['pydantic-monty, fresh session per call']):.2f}x",
                "<= 1.0x",
            ],
            f"primes below {LIMIT:,} (whole call) / plain CPython": [
                f"{primes[default] / plain_primes:.2f}x ({primes[default] * 1e3:.1f} / {plain_primes * 1e3:.1f} ms)",
                "<= 1.5x",
            ],
        },
    )


def seed_sample(runtimes: dict[str, Runtime], monty: Any) -> dict[str, float]:
    """The seed sample's table; returns the default walls' paced p50s (ms) of it and of a trivial
    call in a session."""
    source = SEED.read_text()
    args = {"points_to_add": 50}
    calls: dict[str, Call] = {}
    for label, rt in runtimes.items():
        session = uuid.uuid4().hex
        calls[f"{label}, in a session"] = toolpen_call(rt, SEED.stem, args, session_id=session)
        calls[f"{label}, a trivial call in a session"] = toolpen_call(rt, session_id=session)
        calls[f"{label}, a trivial call, no session"] = toolpen_call(rt)
    calls["smolagents, in process, pydantic and typing imports opened"] = smolagents_call(
        f"{source}\n{SEED.stem}(50)", ("pydantic", "typing")
    )
    calls["plain CPython (exec of the whole source + call)"] = plain_call(
        source, lambda namespace: namespace[SEED.stem](50), context=True
    )
    for call in calls.values():
        timed(call, rounds=20)
    paced = timed_interleaved(calls, rounds=100, pause=PACE)
    back_to_back = timed_interleaved(calls, rounds=100)
    rows = {label: [ms(p50_ms(paced[label])), ms(p50_ms(back_to_back[label]))] for label in calls}
    try:
        monty_call(monty, source, f"{SEED.stem}(50)", {})()
        rows["pydantic-monty, fresh session per call"] = ["runs", "(unexpected)"]
    except Exception as error:  # what monty says, in this run
        rows["pydantic-monty, fresh session per call"] = [
            "cannot run it",
            f"`{str(error).splitlines()[0][:120]}`",
        ]
    table("| the seed sample (`update_customer_loyalty_points`) | paced p50 | back to back p50 |", rows)
    default = next(iter(runtimes))
    return {
        "seed": p50_ms(paced[f"{default}, in a session"]),
        "trivial": p50_ms(paced[f"{default}, a trivial call in a session"]),
    }


def walled_runtimes(stack: contextlib.ExitStack, *sources: str) -> dict[str, Runtime]:
    """A runtime per walls mode, each with ``sources`` registered, closed with ``stack``."""
    runtimes = {}
    for label, walls in WALLS.items():
        rt = runtimes[label] = stack.enter_context(Runtime(walls=walls))  # type: ignore[arg-type]
        for source in sources:
            rt.add_tool(source)
    return runtimes


def registered(walls: str, count: int) -> tuple[Runtime, float]:
    """A runtime with ``count`` numbered tools and ``add``, and the registration's seconds per tool."""
    rt = Runtime(walls=walls)  # type: ignore[arg-type]
    rt.add_tool(TRIVIAL)  # first: the runtime's one-time start (its compilers, its zygote) is not timed
    start = time.perf_counter()
    for index in range(count):
        rt.add_tool(numbered_tool(index))
    return rt, (time.perf_counter() - start) / count


def cpu_seconds(zygote: int) -> float:
    """CPU so far of this process, the zygote and the workers it reaped (a single-use call's
    parts: ``bench_worker.py``); differences of it hardly move with the machine's load."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    _, utime, stime, _, cutime, cstime = stat(zygote)
    return own.ru_utime + own.ru_stime + (utime + stime + cutime + cstime) / TICK


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def in_turn(rt: Runtime, count: int) -> Call:
    """Each call the next of the ``count`` numbered tools."""
    calls = itertools.cycle([toolpen_call(rt, f"tool_{index}", {"a": 1}) for index in range(count)])
    return lambda: next(calls)()


def tools() -> None:
    rows: dict[str, list[str]] = {}
    for label, walls in WALLS.items():
        for count in TOOL_COUNTS:
            rt, per_tool = registered(walls, count)
            with rt:
                calls = {"add": toolpen_call(rt), "in turn": in_turn(rt, count)}
                for call in calls.values():
                    timed(call, rounds=30)
                paced = timed_interleaved(calls, rounds=100, pause=PACE)
                zygote = zygote_pid(rt.pool)
                cpu = cpu_seconds(zygote)
                back_to_back = timed_interleaved(calls, rounds=100)
                cpu = (cpu_seconds(zygote) - cpu) / 200
                rows[f"{label}, {count:,} tools"] = [
                    f"{per_tool * 1e3:.2f} ms",
                    f"{rss_mib(zygote):.1f} MiB",
                    f"{cpu * 1e3:.2f} ms",
                    f"{p50_ms(paced['add']):.3f} / {p50_ms(paced['in turn']):.3f} ms",
                    f"{p50_ms(back_to_back['add']):.3f} / {p50_ms(back_to_back['in turn']):.3f} ms",
                    " / ".join(
                        f"{concurrent_calls(call, SECONDS, THREADS)[0]:,.0f}" for call in calls.values()
                    ),
                ]
    table(
        "| registered tools | registering, per tool | zygote RSS | CPU per call, back to back "
        "(host, zygote, worker) | paced p50: add / in turn "
        "| back to back p50: add / in turn | calls/s, 8 threads: add / in turn |",
        rows,
    )


def callers(runtimes: dict[str, Runtime], monty: Any) -> None:
    calls = trivial_peers(runtimes, monty)
    for call in calls.values():
        timed(call, rounds=30)
    figures: dict[str, list[tuple[float, list[float]]]] = {label: [] for label in calls}
    for count in CALLER_COUNTS:
        for label, call in calls.items():
            figures[label].append(concurrent_calls(call, SECONDS * 0.75, count))
    header = " | ".join(f"{count}" for count in CALLER_COUNTS)
    table(
        f"| calls/s, by callers | {header} |",
        {label: [f"{per_second:,.0f}" for per_second, _ in rows] for label, rows in figures.items()},
    )
    table(  # both: a pool that serves its waiting callers unfairly has a low p50 and a long tail
        f"| latency p50 / p99, by callers | {header} |",
        {
            label: [f"{ms(p50_ms(latencies))} / {ms(p99_ms(latencies))}" for _, latencies in rows]
            for label, rows in figures.items()
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("parts", nargs="*", choices=("peers", "tools", "callers"), default=["peers"])
    options = parser.parse_args()
    print(f"(load average before: {load()}; {os.cpu_count()} CPUs)")
    if "peers" in options.parts or "callers" in options.parts:
        with contextlib.ExitStack() as stack:
            monty = stack.enter_context(open_monty())
            runtimes = walled_runtimes(stack, TRIVIAL, PRIMES)
            if "peers" in options.parts:
                peers(runtimes, monty)
            if "callers" in options.parts:
                callers(runtimes, monty)
    if "tools" in options.parts:
        tools()
    print(f"\n(load average after: {load()})")


if __name__ == "__main__":
    main()
