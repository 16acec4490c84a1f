"""The processes of a pool's jail, seen from the host through /proc."""

from __future__ import annotations

import time
from pathlib import Path

from sandbox.process.pool import WorkerPool


def jail_pids(root: int) -> set[int]:
    """The pids, as the jail sees them (``NSpid``'s last), of ``root``'s live descendants."""
    found, below = set(), [root]
    while below:
        pid = below.pop()
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            below.extend(map(int, Path(f"/proc/{pid}/task/{pid}/children").read_text().split()))
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if not fields.get("State", "").strip().startswith("Z"):
            found.add(int(fields["NSpid"].split()[-1]))
    return found


def gone(pool: WorkerPool, pid: int, timeout: float = 5.0) -> bool:
    """Whether no live process of the pool's jail has ``pid`` (the jail's own pid) any more."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pid not in jail_pids(pool.zygote_pid):
            return True
        time.sleep(0.02)
    return False
