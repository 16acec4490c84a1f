"""The jail's keeper: a child subreaper of the host that leaves nothing behind when the host dies.

The host starts it (``python -I -S reaper.py HOST_PID FDS -- COMMAND...``) in place of bubblewrap;
it runs ``COMMAND`` (bubblewrap, or the unjailed zygote) with the descriptors ``FDS`` and closes
its own copies. It is a subreaper (``PR_SET_CHILD_SUBREAPER``): a process of the jail orphaned at
any moment, bubblewrap's half-built child during the jail's start included, becomes its child
instead of init's. On SIGTERM, which the kernel sends it when the host's thread that started it
ends (``PR_SET_PDEATHSIG``: the host killed included), it SIGKILLs every child it has, and every
orphan they leave, until it has none, then exits. When ``COMMAND`` ends by itself it does the same and ends as
``COMMAND`` did. Standard library only, no import of toolpen: it starts in milliseconds.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36
PR_SET_PDEATHSIG = 1


def children() -> list[int]:
    """This process's children (orphans adopted included)."""
    found: list[int] = []
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(pid) for pid in (task / "children").read_text().split()]
    return found


def kill_all() -> None:
    """SIGKILL and reap every child, and the orphans they leave, until none is left."""
    while True:
        for pid in children():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def end(*_: object) -> None:
    """SIGTERM: the host is gone, or closing the jail."""
    kill_all()
    os._exit(1)


def main(argv: list[str]) -> None:
    host, passed = int(argv[0]), [int(fd) for fd in argv[1].split(",") if fd]
    command = argv[argv.index("--") + 1 :]
    signal.signal(signal.SIGTERM, end)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)  # the host's thread that started us ends
    if os.getppid() != host:  # it ended before that
        return
    try:
        child = os.posix_spawn(command[0], command, dict(os.environ))
    except OSError as exc:
        sys.exit(f"{command[0]} could not run: {exc.strerror}")
    for fd in passed:
        os.close(fd)  # the host waits for the ends of these: only the command may hold them
    _, status = os.waitpid(child, 0)
    kill_all()
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main(sys.argv[1:])
