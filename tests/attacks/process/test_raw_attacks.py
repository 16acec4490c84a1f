"""Every raw attack of ``sandbox.process.probes``, by subject (``-k files``, ``-k kernel``, ...).

- files: read a secret, another session's SQLite database, the repository and /etc/shadow;
  write, create, link, rename, remove, truncate, chmod;
- proc: /proc of the host and of a sacrificial process with a secret on its command line, the
  memory of other processes;
- sockets: every family, and TCP, UDP, UNIX and abstract UNIX listeners on loopback;
- ipc: SysV and POSIX objects that would outlive the worker;
- processes: fork, exec, spawn, threads; signals and ptrace against a sacrificial process;
- kernel: keyctl, bpf, perf_event_open, userfaultfd, io_uring_setup, unshare, setns, mount,
  pivot_root, setuid, capset, ... with invalid arguments (only EPERM or ENOSYS is refused);
- exhaustion: memory, CPU, disk and descriptors end at the call's limits.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sandbox.process.pool import WorkerPool
from sandbox.process.probes import PROBES, Probe, Targets
from tests.attacks.process.probing import assert_refused, probes


@pytest.mark.parametrize("probe", probes())
def test_refused(pool: WorkerPool, targets: Targets, probe: Probe) -> None:
    assert_refused(pool, targets, probe)


def test_doctor_probe_runs_every_probe_and_finds_each_refused() -> None:
    command = [sys.executable, "-c", "from runtime._cli import main; main()", "doctor", "--probe", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    results = json.loads(done.stdout)["probes"]
    assert [result["name"] for result in results] == [probe.name for probe in PROBES]
    assert done.returncode == 0, [result for result in results if not result["refused"]]
