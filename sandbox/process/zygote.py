"""The zygote: a warm process that forks workers for the pool (``python -m sandbox.process.zygote FD PROGRAM_FD``).

It imports everything tool code may use once (``sandbox/process/warmup.py``), rehearses a call,
reads the workers' seccomp program (built by the host) from descriptor ``PROGRAM_FD``, sets up
once what every worker inherits (``isolation.isolate_zygote``: not dumpable, empty environment,
an empty removed working directory, unprivileged, no-new-privs), and then serves its control
socket (``SOCK_SEQPACKET``, one JSON message a packet):

- ``{"op": "fork", "reuse": bool[, "retired": pid]}``: fork a worker connected by a new socket
  pair; answer ``{"op": "forked", "pid"}`` with the parent's end of the pair and a pidfd of the
  worker attached (``SCM_RIGHTS``): in the jail the pid is this PID namespace's, the pidfd works
  anywhere. ``retired`` names the worker this one replaces: the pool is done with it, so it is
  killed (if it has not exited yet) and its end is not reported.
- ``{"op": "warm", "source", "walls"}``: compile a tool here (for that walls mode), and load the
  libraries it imports (``warmup.preload_libraries``), so that later forks inherit both; answer
  ``{"op": "warmed"}`` (workers the pool received before it were forked before the warm-up).
- It reports a worker that ended other than cleanly (exit code 0) before it was retired as
  ``{"op": "exit", "pid", "code"}`` (``code`` < 0: the signal); any other end costs the pool nothing.

It watches each worker through a pidfd of its own (no SIGCHLD handler for a worker to undo), and
exits when the pool closes the control socket.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import select
import signal
import socket
import sys
import tempfile
from typing import Any

from runtime.errors import ToolpenError
from sandbox.language.namespace import install_process_hooks
from sandbox.process.forking import fork, reseed
from sandbox.process.isolation import isolate_zygote
from sandbox.process.warmup import preload, preload_libraries, rehearse_preparation, settle
from sandbox.process.worker import compile_for, rehearse, serve
from sandbox.wire import decode, encode

MAX_PACKET = 4 * 1024 * 1024


class Zygote:
    """The fork server; one per pool."""

    def __init__(self, control: socket.socket, seccomp_filter: bytes) -> None:
        self.control = control
        install_process_hooks()
        preload()
        install_process_hooks(worker=True)  # armed: from here on the hooks check everything this process does
        rehearse()
        rehearse_preparation()  # what every worker runs before its job, compiled and specialized here
        tempfile.gettempdir()  # found once here rather than probed by every worker
        self.walls = isolate_zygote(seccomp_filter)
        self.workers: dict[int, int] = {}  # pidfd -> pid of each live worker
        self.pidfds: dict[int, int] = {}  # pid -> pidfd of each live worker
        self.retired: set[int] = set()  # live workers the pool is done with: their end is no news
        # one buffer for every control message, kept out of the workers (they never read it)
        self.packet = mmap.mmap(-1, MAX_PACKET)
        self.packet.madvise(mmap.MADV_DONTFORK)
        self.events = select.epoll()
        self.events.register(control.fileno(), select.EPOLLIN)
        settle()

    def serve(self) -> None:
        """Answer control messages and reap workers until the pool hangs up."""
        control = self.control.fileno()
        while True:
            for fd, _ in self.events.poll():
                if fd == control:
                    size = self.control.recv_into(self.packet)
                    if not size:
                        return
                    self.handle(decode(self.packet[:size]))
                else:
                    self.reap(fd)

    def handle(self, message: dict[str, Any]) -> None:
        if message.get("op") == "warm":
            warm(str(message.get("source", "")), message.get("walls"))
            settle()  # what it loaded joins the warm heap
            self.control.send(encode({"op": "warmed"}))
        elif message.get("op") == "fork":
            retired = message.get("retired")
            if type(retired) is int:
                self.retire(retired)
            self.fork_worker(reuse=bool(message.get("reuse")))

    def retire(self, pid: int) -> None:
        """Kill a worker the pool is done with (most have exited already) and forget its end."""
        pidfd = self.pidfds.get(pid)
        if pidfd is None:  # reaped already
            return
        self.retired.add(pid)
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)

    def fork_worker(self, *, reuse: bool) -> None:
        """Fork one worker and hand the parent's end of its socket to the pool."""
        parent_end, child_end = socket.socketpair()
        pid = fork()
        if pid == 0:
            exit_code = 1
            try:  # every other descriptor, the control socket too, is closed by isolate_worker
                parent_end.close()
                reseed()
                serve(child_end, reuse=reuse, zygote=self.walls)
                exit_code = 0
            finally:
                os._exit(exit_code)
        pidfd = os.pidfd_open(pid)
        self.workers[pidfd] = pid
        self.pidfds[pid] = pidfd
        self.events.register(pidfd, select.EPOLLIN)
        try:
            socket.send_fds(
                self.control, [encode({"op": "forked", "pid": pid})], [parent_end.fileno(), pidfd]
            )
        finally:
            parent_end.close()
            child_end.close()

    def reap(self, pidfd: int) -> None:
        """Collect a finished worker; tell the pool how it ended unless it ended cleanly or was retired."""
        self.events.unregister(pidfd)
        pid = self.workers.pop(pidfd)
        del self.pidfds[pid]
        ended = os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
        os.close(pidfd)
        code = ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
        if pid in self.retired:
            self.retired.discard(pid)
        elif code != 0:
            self.control.send(encode({"op": "exit", "pid": pid, "code": code}))


def warm(source: str, walls: object) -> None:
    """Load the libraries a tool imports and compile it, so that both are cached before the next forks."""
    # a library that fails to load fails the calls importing it (in their workers), not the pool
    with contextlib.suppress(Exception):
        preload_libraries(source)
    with contextlib.suppress(ToolpenError):  # the call reports it, located, when the tool runs
        compile_for(source, walls)


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the pool closed: nothing to tell
        with open(int(sys.argv[2]), "rb") as program:
            seccomp_filter = program.read()
        Zygote(socket.socket(fileno=int(sys.argv[1])), seccomp_filter).serve()
