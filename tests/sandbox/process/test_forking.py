"""Workers are forked without Python's at-fork handlers, and still get random state of their own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runtime import Runtime

ROOT = str(Path(__file__).resolve().parents[3])
RANDOM_TOOL = 'import random\n\n\ndef draw() -> float:\n    """Draws."""\n    return random.random()\n'
NUMPY_TOOL = (
    'import numpy as np\n\n\ndef draw() -> float:\n    """Draws from the global generator."""\n'
    "    return float(np.random.random())\n"
)
HANDLER_RAN = """
import os, sys, threading, time
from sandbox.process.forking import fork
ran = []
os.register_at_fork(after_in_child=lambda: ran.append(1))
if sys.argv[1] == "thread":
    threading.Thread(target=time.sleep, args=(1,), daemon=True).start()
pid = fork()
if pid == 0:
    os._exit(len(ran))
print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def _draws(walls: str, source: str) -> list[float]:
    with Runtime(walls=walls) as rt:  # type: ignore[arg-type]
        rt.add_tool(source)
        results = [rt.call("draw", {}) for _ in range(4)]
    assert all(result.success for result in results), results
    return [result.output for result in results]


@pytest.mark.parametrize("walls", ["all", "process"])
def test_each_worker_draws_its_own_random_numbers(walls: str) -> None:
    assert len(set(_draws(walls, RANDOM_TOOL))) == 4


def test_numpy_global_generator_differs_between_workers() -> None:
    pytest.importorskip("numpy")
    assert len(set(_draws("process", NUMPY_TOOL))) == 4


@pytest.mark.parametrize(("threads", "handlers"), [("one", "0"), ("thread", "1")])
def test_at_fork_handlers_are_skipped_only_in_a_single_threaded_process(threads: str, handlers: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", HANDLER_RAN, threads], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert done.stdout.strip() == handlers, done.stderr
