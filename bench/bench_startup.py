"""Start-up time and install size of the core (`pip install toolpen`, no extras).

Run: ``python bench/bench_startup.py`` builds a fresh venv in a temporary directory, installs this
source tree into it without extras, and then, in that venv:

- measures ``site-packages`` (all of it, and without the venv's own pip and setuptools);
- times ``from runtime import Runtime``, ``toolpen --help`` and ``toolpen --version`` (and an
  empty ``python -c pass`` for reference) over ``--runs`` runs each, reporting the median wall
  time and the median CPU time (user + sys of the child, less noisy on a loaded machine);
- checks that the core works and that each missing extra is named in one line: a tool runs from
  the CLI and the API, ``toolpen serve`` / ``mcp`` / a postgresql:// store exit 2 with the message.

``--venv PATH`` measures an existing venv instead (for example one with extras installed).
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
LOYALTY = ROOT / "samples" / "update_customer_loyalty_points.py"
EXTRA_CHECKS = [
    (["serve"], "toolpen serve needs the 'serve' extra: pip install 'toolpen[serve]'"),
    (["mcp", str(LOYALTY)], "toolpen mcp needs the 'mcp' extra: pip install 'toolpen[mcp]'"),
    (
        ["session", "list", "--store", "postgresql://u@127.0.0.1:1/db"],
        "a postgresql:// store needs the 'postgres' extra: pip install 'toolpen[postgres]'",
    ),
    (
        ["session", "list", "--store", "redis://127.0.0.1:1/0"],
        "a redis:// store needs the 'redis' extra: pip install 'toolpen[redis]'",
    ),
]


def megabytes(path: Path) -> float:
    total = sum(file.stat().st_size for file in path.rglob("*") if file.is_file() and not file.is_symlink())
    return total / 1e6


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def build_core_venv(directory: Path) -> tuple[Path, float]:
    """A fresh venv with this tree installed without extras; the seconds the install took."""
    venv = directory / "core"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    started = time.monotonic()
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], check=True)
    return venv, time.monotonic() - started


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) for one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup(venv: Path, runs: int, cwd: Path) -> None:
    python, toolpen = str(venv / "bin" / "python"), str(venv / "bin" / "toolpen")
    cases = {
        "python -c pass (reference)": [python, "-c", "pass"],
        "from runtime import Runtime": [python, "-c", "from runtime import Runtime"],
        "toolpen --help": [toolpen, "--help"],
        "toolpen --version": [toolpen, "--version"],
    }
    print(f"| start-up ({runs} runs each) | median wall | median CPU (user+sys) |")
    print("| --- | ---: | ---: |")
    for name, command in cases.items():
        timed(command, cwd)  # warm the page cache and the .pyc files
        samples = [timed(command, cwd) for _ in range(runs)]
        wall = statistics.median(sample[0] for sample in samples)
        cpu = statistics.median(sample[1] for sample in samples)
        print(f"| `{name}` | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms |")


def check_core(venv: Path, cwd: Path) -> None:
    """The core runs a tool from the CLI and the API; each missing extra is one line and exit 2."""
    toolpen, python = str(venv / "bin" / "toolpen"), str(venv / "bin" / "python")
    done = subprocess.run(
        [toolpen, "run", str(LOYALTY), "--args", '{"points_to_add": 5}', "--store", "memory://", "--json"],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    print(f"core: toolpen run -> exit {done.returncode}")
    api = "from runtime import Runtime\nwith Runtime(store='memory://') as rt:\n"
    api += "    t = rt.add_tool('def add(a: int, b: int) -> int:\\n    return a + b\\n')\n"
    api += "    print(rt.call(t.name, {'a': 1, 'b': 2}).output)\n"
    done = subprocess.run([python, "-c", api], cwd=cwd, capture_output=True, text=True)
    print(f"core: Runtime.call -> {done.stdout.strip() or done.stderr.strip()}")
    for args, line in EXTRA_CHECKS:
        done = subprocess.run([toolpen, *args], cwd=cwd, capture_output=True, text=True)
        verdict = (
            "ok" if (done.returncode, done.stderr) == (2, line + "\n") else f"UNEXPECTED {done.stderr!r}"
        )
        print(f"core: toolpen {args[0]} {' '.join(args[1:2])} -> exit {done.returncode}: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", type=Path, help="measure this venv instead of building a fresh core one")
    parser.add_argument("--runs", type=int, default=20)
    options = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="toolpen-bench-"))
    try:
        if options.venv:
            venv = options.venv
        else:
            venv, seconds = build_core_venv(directory)
            print(f"core install: {seconds:.0f} s")
        packages = site_packages(venv)
        own = sum(
            megabytes(path)
            for path in packages.glob("*")
            if path.name.split("-")[0]
            in {"pip", "setuptools", "pkg_resources", "_distutils_hack", "distutils-precedence.pth"}
        )
        total = megabytes(packages)
        count = len(list(packages.glob("*.dist-info")))
        print(
            f"site-packages: {total:.1f} MB in {count} distributions; {total - own:.1f} MB without pip and setuptools"
        )
        startup(venv, options.runs, directory)
        check_core(venv, directory)
        print(f"(machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
