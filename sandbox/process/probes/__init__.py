"""Raw attacks on the process wall: tool code holding the real builtins tries to get out.

Each :class:`Probe` is a tool run under ``walls="process"`` (plain CPython: ``open``, ``os``,
``ctypes``, ``socket``) against :class:`Targets` the host sets up for it on loopback and in a
temporary folder of its own: a world-readable secret file and session database, listeners of
every socket family, a sacrificial process with a secret on its command line. A probe is
judged by what the tool saw *and* by what the host finds afterwards (the files unchanged, no
connection accepted, no IPC object left, the sacrificial process untouched), so a tool that
lies about its results gains nothing. Kernel interfaces are called with invalid arguments: a
permitted call fails harmlessly (``EINVAL``, ``EFAULT``, ``EBADF``, ...), only ``EPERM`` or
``ENOSYS`` count as refused. No destructive call is made with valid arguments, and signals go
only to the sacrificial process.

``attacks.py`` holds the tool sources, ``targets.py`` what they attack, ``judges.py`` how each
run is judged. ``tests/attacks/process/`` runs every probe and asserts each is refused;
``toolpen doctor --probe`` runs them on the machine at hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sandbox.messages import Call
from sandbox.process.pool import WorkerPool
from sandbox.process.probes.attacks import (
    KERNEL_CALLS,
    PRELUDE,
    PROBES,
    SWEEP_TOP,
    Probe,
    allowed_numbers,
    syscall_numbers,
)
from sandbox.process.probes.judges import PROBE_LIMITS
from sandbox.process.probes.platform import platform_numbers
from sandbox.process.probes.targets import Targets

__all__ = ["PROBES", "Probe", "ProbeResult", "Targets", "run_probe", "run_probes"]


@dataclass(frozen=True)
class ProbeResult:
    """One probe's verdict; ``detail`` says what got through (or ``"refused"``)."""

    name: str
    subject: str
    refused: bool
    detail: str


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise PermissionError("probes call no host service")


def run_probe(pool: WorkerPool, probe: Probe, targets: Targets) -> ProbeResult:
    """Run one probe in a worker under ``walls="process"`` and judge it."""
    kernel = {
        "syscalls": syscall_numbers(KERNEL_CALLS),
        "kernel_args": KERNEL_CALLS,
        "allowed": allowed_numbers(),
        "platform": platform_numbers(SWEEP_TOP),
    }
    args = {"t": {**targets.args(), **kernel, "memory": PROBE_LIMITS.memory}}
    call = Call(PRELUDE + probe.source, "probe", args=args, context={"state": {}}, walls="process")
    reply = pool.run(call, probe.limits, _no_rpc)
    through = probe.judge(reply, targets)
    return ProbeResult(probe.name, probe.subject, through is None, through or "refused")


def run_probes(pool: WorkerPool, probes: tuple[Probe, ...] = PROBES) -> Iterator[ProbeResult]:
    """Every probe, each in its own worker, against one set of targets."""
    with Targets() as targets:
        for probe in probes:
            yield run_probe(pool, probe, targets)
