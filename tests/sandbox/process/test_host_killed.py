"""No process outlives its host: hosts SIGKILLed while their jail starts leave no bwrap, zygote or worker.

Each round runs in a subreaper of its own (``KILLER``): whatever a killed host leaves becomes its
child, and is counted (then killed) there, so that other processes of the machine do not count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from sandbox.process.zygote_link import PACKAGE_ROOT

KILLER = textwrap.dedent(
    """
    import ctypes, json, os, signal, subprocess, sys, time
    from pathlib import Path
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans come to us
    HOST = "from sandbox.process.pool import WorkerPool; import time; WorkerPool(size=2); time.sleep(60)"

    def live_children():
        found = []
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            for pid in (task / "children").read_text().split():
                try:
                    if Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z":
                        found.append(int(pid))
                except OSError:
                    pass
        return found

    rounds, first, last = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    left = []
    for number in range(rounds):
        host = subprocess.Popen([sys.executable, "-c", HOST])
        time.sleep(first + (last - first) * number / max(rounds - 1, 1))
        host.kill()
        host.wait()
        deadline = time.monotonic() + 2  # a zygote still importing sees its end a little later
        while (stayed := live_children()) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in stayed:
            left.append(Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\\0")[0].decode())
            os.kill(pid, signal.SIGKILL)
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
    print(json.dumps(left))
    """
)


def leftovers(rounds: int, first: float, last: float) -> list[str]:
    """The commands of what ``rounds`` hosts killed ``first``..``last`` s after their start left."""
    done = subprocess.run(
        [sys.executable, "-c", KILLER, str(rounds), str(first), str(last)],
        capture_output=True, text=True, check=True, timeout=600,
        env={**os.environ, "PYTHONPATH": PACKAGE_ROOT},
    )  # fmt: skip
    return json.loads(done.stdout.splitlines()[-1])


def test_hosts_killed_while_their_jail_starts_leave_no_process():
    # 0.3-0.7 s after its start a host is importing, building the jail or forking its workers
    assert leftovers(6, 0.3, 0.7) == []


@pytest.mark.slow
def test_many_hosts_killed_at_any_moment_of_their_start_leave_no_process():
    assert leftovers(80, 0.0, 1.2) == []
