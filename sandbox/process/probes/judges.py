"""How a probe is judged: by the tool's record of its attempts and by what the host finds afterwards.

A judge returns what got through (a short sentence) or None when the attack was refused. Every
judge ends with ``_outside``: the targets' files unchanged, no listener reached, the
sacrificial process untouched, whatever the tool claims.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from sandbox.common.limits import Limits, MiB
from sandbox.messages import Done
from sandbox.process.probes.targets import Targets, remove_ipc

REFUSED_ERRNOS = ("EPERM", "ENOSYS")
"""What a blocked kernel interface answers; anything else means the call reached the kernel."""
PROBE_LIMITS = Limits(wall_time=15.0, cpu_time=10.0, memory=256 * MiB, open_files=64)
DISK_CAP = 16 * MiB  # more than this written anywhere is a disk exhaustion that got through

Judge = Callable[[Done, Targets], str | None]
"""What got through (a short sentence), or None when the attack was refused."""


def _attempts(reply: Done) -> dict[str, str] | str:
    """The tool's record of its attempts, or why there is none."""
    if reply.error is not None:
        return f"the probe did not finish ({reply.error.kind}: {reply.error.message})"
    if not isinstance(reply.output, dict):
        return "the probe returned no record"
    return {str(k): str(v) for k, v in reply.output.items()}


def all_failed(reply: Done, targets: Targets) -> str | None:
    """Every attempt raised; and nothing outside changed."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    through = [label for label, outcome in attempts.items() if outcome == "ok"]
    return _outside(targets, through)


def kernel_refused(reply: Done, targets: Targets) -> str | None:
    """Every call answered EPERM or ENOSYS (anything else reached the kernel)."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    through = [f"{label} ({outcome})" for label, outcome in attempts.items() if outcome not in REFUSED_ERRNOS]
    return _outside(targets, through)


def killed_or_refused(reply: Done, targets: Targets) -> str | None:
    """The filter killed the worker (``SIGSYS``: a system call of another ABI), or every call
    answered EPERM or ENOSYS."""
    if reply.error is not None and reply.error.kind == "worker_crashed" and "SIGSYS" in reply.error.message:
        return _outside(targets, [])
    return kernel_refused(reply, targets)


def no_secret(reply: Done, targets: Targets) -> str | None:
    """Every attempt failed, and nothing read holds the secret or the host's command line."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    through = [label for label, outcome in attempts.items() if outcome == "ok"]
    return _outside(targets, through + _host_data(attempts, targets))


def nothing_of_the_host(reply: Done, targets: Targets) -> str | None:
    """Nothing read holds the secret or the host's command line (the jail's own processes may be read)."""
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    return _outside(targets, _host_data(attempts, targets))


def _host_data(attempts: dict[str, str], targets: Targets) -> list[str]:
    found = []
    if any(targets.secret in value or targets.token in value for value in attempts.values()):
        found.append("the secret was read")
    for what, text in (("command line", targets.host_cmdline), ("environment", targets.host_environ)):
        if text.strip() and any(text.strip() in value for value in attempts.values()):
            found.append(f"the host's {what} was read")
    return found


def ipc_left(reply: Done, targets: Targets) -> str | None:
    """No IPC object the tool created is there after the call (they are removed if they are)."""
    left = remove_ipc(targets.ipc_key, targets.shm_name)
    return _outside(targets, [f"{kind} outlived the worker" for kind in left])


def ended_with(*kinds: str) -> Judge:
    """The call ended with one of ``kinds`` (the limit held) and nothing outside changed."""

    def judge(reply: Done, targets: Targets) -> str | None:
        if reply.error is None:
            return _outside(targets, [f"the call finished: {reply.output}"])
        if reply.error.kind not in kinds:
            return _outside(targets, [f"ended with {reply.error.kind}: {reply.error.message}"])
        return _outside(targets, [])

    return judge


WORKER_GONE_WITHIN = 3.0
"""Seconds a worker may take to be gone once its call has ended."""


def worker_gone(reply: Done, targets: Targets) -> str | None:
    """The worker is gone soon after its call ended, even one that sent its own ``done`` and slept on.

    The probe answers with its pid in the jail and its start time (``/proc/<pid>/stat``); the host
    looks for that process among its own (``NSpid`` gives the pid each namespace sees).
    """
    if reply.error is not None or not isinstance(reply.output, dict):
        return _outside(targets, [])  # no early done reached the host: the wall clock ended the call
    pid, start = str(reply.output.get("pid")), str(reply.output.get("start"))
    deadline = time.monotonic() + WORKER_GONE_WITHIN
    while _still_running(pid, start):
        if time.monotonic() > deadline:
            return _outside(targets, [f"the worker (pid {pid} in the jail) still runs after its call ended"])
        time.sleep(0.05)
    return _outside(targets, [])


def _still_running(pid: str, start: str) -> bool:
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
            stat = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        nspid = next((line.split()[1:] for line in status.splitlines() if line.startswith("NSpid:")), [])
        if nspid and nspid[-1] == pid and stat[19] == start and stat[0] != "Z":
            return True
    return False


def descriptors_capped(reply: Done, targets: Targets) -> str | None:
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    count = int(attempts.get("opened", "0"))
    through = [f"{count} descriptors opened"] if count > PROBE_LIMITS.open_files else []
    return _outside(targets, through)


def disk_capped(reply: Done, targets: Targets) -> str | None:
    attempts = _attempts(reply)
    if isinstance(attempts, str):
        return attempts
    written = sum(int(v) for k, v in attempts.items() if k.startswith("bytes ") and v.isdigit())
    through = [f"{written} bytes written"] if written > DISK_CAP else []
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        for leftover in Path(folder).glob(f"*{targets.token}*"):
            through.append(f"{leftover} left on the host")
            with contextlib.suppress(OSError):
                leftover.unlink()
    return _outside(targets, through)


def _outside(targets: Targets, through: list[str]) -> str | None:
    through = [*through, *targets.files_changed(), *(f"{n} listener reached" for n in targets.reached())]
    if touched := targets.victim_touched():
        through.append(touched)
    return "; ".join(through) or None
