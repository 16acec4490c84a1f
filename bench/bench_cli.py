"""Whole-command times of the CLI as a user runs it: `toolpen --help`, `toolpen check FILE` and
`toolpen run` of the seed sample (`update_customer_loyalty_points`, its context from
`samples/context/`, the default SQLite store in a fresh directory).

Run: ``python bench/bench_cli.py`` times this tree; ``--baseline PATH`` also times another source
tree of toolpen (a ``git worktree add /tmp/base main``, say), the two in turn, run by run, so that
a drifting machine moves both alike; the ratio of each pair is reported too. Each command runs
``--runs`` times after one warm-up, as ``python -c "from runtime._cli import main; main()" ...``
with ``PYTHONPATH`` set to the tree. Python's bytecode cache is on, in a temporary directory
(``PYTHONPYCACHEPREFIX``), as it is for an installed toolpen: the warm-up writes it.

Reported per command: the median wall time, the median CPU time (user + sys of the command and
the processes it waited for: its zygote and workers; less noisy than wall time on a loaded
machine) and, with a baseline, the medians of the per-pair ratios. The load average is printed
before and after: quote it with the figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "samples" / "update_customer_loyalty_points.py"
CONTEXT = ROOT / "samples" / "context" / "update_customer_loyalty_points.json"
COMMANDS = {
    "toolpen --help": ["--help"],
    "toolpen check FILE": ["check", str(SAMPLE)],
    "toolpen run (seed sample)": [
        "run",
        str(SAMPLE),
        "--args",
        '{"points_to_add": 50}',
        "--context",
        f"@{CONTEXT}",
    ],
}


def timed(tree: Path, args: list[str], cwd: Path, cache: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and what it waited for) of one run in ``tree``."""
    environment = {**os.environ, "PYTHONPATH": str(tree), "PYTHONPYCACHEPREFIX": str(cache)}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    command = [sys.executable, "-c", "from runtime._cli import main; main()", *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} in {tree} exited {done.returncode}: {done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(trees: list[Path], args: list[str], runs: int, work: Path) -> list[list[tuple[float, float]]]:
    """Each tree's samples of one command, the trees in turn for every run (one warm-up each)."""
    cache = work / "pycache"
    samples: list[list[tuple[float, float]]] = [[] for _ in trees]
    for round_number in range(runs + 1):
        for index, tree in enumerate(trees):
            cwd = work / f"cwd{index}"  # each tree its own session store
            cwd.mkdir(exist_ok=True)
            sample = timed(tree, args, cwd, cache)
            if round_number:
                samples[index].append(sample)
    return samples


def median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--baseline", type=Path, help="another toolpen source tree, timed in turn")
    options = parser.parse_args()
    trees = [ROOT, *([options.baseline.resolve()] if options.baseline else [])]
    print(f"(load average before: {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs; {options.runs} runs)")
    header = "| command | median wall | median CPU |"
    if options.baseline:
        header += " baseline wall | baseline CPU | wall ratio | CPU ratio |"
    print(header)
    print("| --- |" + " ---: |" * (header.count("|") - 2))
    work = Path(tempfile.mkdtemp(prefix="toolpen-bench-cli-"))
    try:
        for name, args in COMMANDS.items():
            samples = measure(trees, args, options.runs, work)
            row = f"| `{name}` |"
            for tree_samples in samples:
                row += f" {median_ms([s[0] for s in tree_samples])} | {median_ms([s[1] for s in tree_samples])} |"
            if options.baseline:
                ours, base = samples
                for part in (0, 1):
                    ratio = statistics.median(a[part] / b[part] for a, b in zip(ours, base, strict=True))
                    row += f" {ratio:.2f} |"
            print(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"(load average after: {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
