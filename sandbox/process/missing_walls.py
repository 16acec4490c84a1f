"""A wall the machine lacks: refuse to start without it, or, when the user opted out, warn once.

A machine that lacks a wall makes the pool refuse to start with ``IsolationUnavailable`` naming
the wall and how to get it, unless the user opted out (``allow_weak_isolation``): then it warns
once per process and runs without it. ``namespace_walls`` tells, for ``toolpen doctor``, which of
the jail's namespaces a worker really has.
"""

from __future__ import annotations

import logging
import os

from sandbox.common.errors import IsolationUnavailable
from sandbox.process.jail import NAMESPACES

log = logging.getLogger(__name__)

OPT_OUT = "or opt out with Runtime(allow_weak_isolation=True) / --allow-weak-isolation"
_warned: set[str] = set()


def missing_wall(wall: str, reason: str, *, allow_weak: bool) -> None:
    """Refuse (``IsolationUnavailable``), or warn once per process when the user opted out."""
    message = f"the process wall lacks {wall}: {reason}"
    if not allow_weak:
        raise IsolationUnavailable(f"{message}; {OPT_OUT}")
    if message not in _warned:
        _warned.add(message)
        log.warning("toolpen runs with weak isolation (allow_weak_isolation): %s", message)


def namespace_walls(worker_namespaces: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(active, missing) namespace walls: a worker's namespaces compared with this process's."""
    active, missing = {}, {}
    for namespace in NAMESPACES:
        try:
            host = os.readlink(f"/proc/self/ns/{namespace.name}")
        except OSError:
            continue  # this kernel has no such namespace
        worker = worker_namespaces.get(namespace.name)
        if worker is not None and worker != host:
            active[f"{namespace.label} namespace"] = f"its own ({worker})"
        else:
            missing[f"{namespace.label} namespace"] = "the host's"
    return active, missing
