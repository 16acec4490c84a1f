"""The zygote: a warm process that forks workers for the pool (``python -m sandbox.process.zygote FD PROGRAM_FD``).

It imports what any tool may use once (``sandbox/process/warmup.py``), runs a call once,
reads the workers' seccomp program (built by the host) from descriptor ``PROGRAM_FD``, sets up
once what every worker inherits (``isolation.isolate_zygote``: not dumpable, empty environment,
an empty removed working directory, unprivileged, no-new-privs), and then serves its control
socket (``SOCK_SEQPACKET``, one message a packet, JSON but for the fork request):

- a fork request (``messages.FORK_REQUEST``: reuse, and the pid of a retired worker or 0): fork a
  worker connected by a new socket pair; answer ``messages.Forked(pid)`` with the parent's
  end of the pair and a pidfd of the worker attached (``SCM_RIGHTS``): in the jail the pid is
  this PID namespace's, the pidfd works anywhere. A retired pid names a worker the pool is done
  with and wants killed: if it is still running it is killed, its end is not reported, and the
  request's worker replaces it; if it has ended already it was replaced then, and nothing is
  forked.
- Every other worker that ends is replaced when it does, with no request: a single-use worker
  exits after its call, and the pool, which counted on the replacement, sends nothing (on the
  caller's path that message and the zygote's wake-up cost about 35 us of a 0.5 ms call).
- ``messages.Warm(source, walls)``: compile a tool here (for that walls mode), and load the
  modules and libraries it imports (``warmup.preload_for``), so that later forks inherit both;
  answer ``messages.Warmed(loaded)`` (``loaded``: a module was loaded; workers the pool
  received before it were forked before the warm-up).
- It reports a worker that ended other than cleanly (exit code 0) before it was retired as
  ``messages.Exit(pid, code)`` (``code`` < 0: the signal); any other end costs the pool nothing.

It watches each worker through a pidfd of its own (no SIGCHLD handler for a worker to undo), and
exits when the pool closes the control socket.
"""

from __future__ import annotations

import _socket
import contextlib
import mmap
import os
import select
import signal
import socket
import struct
import sys
from socket import SCM_RIGHTS, SOL_SOCKET
from typing import Any

from sandbox.language.module_allowlist import ALLOWED_MODULES
from sandbox.language.namespace import install_process_hooks
from sandbox.messages import FORK_REQUEST, FORKED_PACKET, Exit, Warmed, decode_for_zygote
from sandbox.process.forking import fork, reseed
from sandbox.process.isolation import isolate_zygote
from sandbox.process.warmup import LIBRARY_PACKAGES, preload, preload_for, settle, warm_up_preparation
from sandbox.process.worker import compile_for, run_warm_up, serve
from sandbox.wire import decode, encode

MAX_PACKET = 4 * 1024 * 1024
EVERY_ALLOWED_IMPORT = "\n".join(
    f"import {name}" for name in sorted(ALLOWED_MODULES) if name.partition(".")[0] not in LIBRARY_PACKAGES
)
"""What an unjailed root zygote loads before it drops its privileges (the libraries stay on demand)."""
FDS = struct.Struct("2i")  # an SCM_RIGHTS payload: the worker's socket and its pidfd


class Zygote:
    """The fork server; one per pool."""

    def __init__(self, control: socket.socket, seccomp_filter: bytes) -> None:
        self.control = control
        install_process_hooks()
        preload()
        if os.geteuid() == 0:  # unjailed, as root: the user it drops to may not read the modules later
            preload_for(EVERY_ALLOWED_IMPORT)
        install_process_hooks(worker=True)  # armed: from here on the hooks check everything this process does
        run_warm_up()
        warm_up_preparation()  # what every worker runs before its job, compiled and specialized here
        self.walls = isolate_zygote(seccomp_filter)
        self.workers: dict[int, int] = {}  # pidfd -> pid of each live worker
        self.pidfds: dict[int, int] = {}  # pid -> pidfd of each live worker
        self.retired: set[int] = set()  # live workers the pool is done with: their end is no news
        self.reuse = False  # whether the pool keeps its workers for more calls (each request says)
        # one buffer for every control message, kept out of the workers (they never read it)
        self.packet = mmap.mmap(-1, MAX_PACKET)
        self.packet.madvise(mmap.MADV_DONTFORK)
        self.events = select.epoll()
        self.events.register(control.fileno(), select.EPOLLIN)
        settle()

    def serve(self) -> None:
        """Answer control messages and reap workers until the pool hangs up.

        The loop per worker is kept lean (a binary fork request, the answer formatted as bytes, raw
        descriptors): every page the zygote writes while a worker shares it is copied, about 160 per
        worker with JSON and socket objects.
        """
        control = self.control.fileno()
        packet = self.packet
        while True:
            for fd, _ in self.events.poll():
                if fd != control:
                    self.reap(fd)
                    continue
                size = self.control.recv_into(packet)
                if size == FORK_REQUEST.size and packet[:4] == b"fork":
                    _, self.reuse, retired = FORK_REQUEST.unpack_from(packet)
                    if not retired or self.retire(retired):
                        self.fork_worker()
                elif not size:
                    return
                else:
                    self.handle(decode(packet[:size]))

    def handle(self, message: dict[str, Any]) -> None:
        request = decode_for_zygote(message)
        if request is not None:
            loaded = warm(request.source, request.walls)
            settle()  # what it loaded joins the warm heap
            self.control.send(encode(Warmed(loaded).encode()))

    def retire(self, pid: int) -> bool:
        """Kill a worker the pool is done with and forget its end; False if it had ended (and was replaced) already."""
        pidfd = self.pidfds.get(pid)
        if pidfd is None:  # reaped, and replaced, already
            return False
        self.retired.add(pid)
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        return True

    def fork_worker(self) -> None:
        """Fork one worker and hand the parent's end of its socket to the pool."""
        parent_end, child_end = (
            end.detach() for end in _socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        )
        pid = fork()
        if pid == 0:
            exit_code = 1
            try:  # every other descriptor, the control socket too, is closed by isolate_worker
                os.close(parent_end)
                reseed()
                serve(socket.socket(fileno=child_end), reuse=self.reuse, zygote=self.walls)
                exit_code = 0
            finally:
                os._exit(exit_code)
        os.close(child_end)
        pidfd = os.pidfd_open(pid)
        self.workers[pidfd] = pid
        self.pidfds[pid] = pidfd
        self.events.register(pidfd, select.EPOLLIN)
        try:
            self.control.sendmsg(
                [FORKED_PACKET % pid], [(SOL_SOCKET, SCM_RIGHTS, FDS.pack(parent_end, pidfd))]
            )
        finally:
            os.close(parent_end)

    def reap(self, pidfd: int) -> None:
        """Collect a finished worker and, unless it was retired (replaced then), replace it; tell the
        pool how it ended unless it ended cleanly or was retired."""
        self.events.unregister(pidfd)
        pid = self.workers.pop(pidfd)
        del self.pidfds[pid]
        ended = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOWAIT)  # a zombie still: its /proc is readable
        assert ended is not None  # None only with WNOHANG
        code = ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
        if code == -signal.SIGKILL and pid not in self.retired and out_of_cpu(pid):
            code = -signal.SIGXCPU  # the kernel's kill at the hard CPU limit: SIGXCPU ignored or blocked
        os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
        os.close(pidfd)
        if pid in self.retired:
            self.retired.discard(pid)
            return
        if code != 0:
            self.control.send(encode(Exit(pid, code).encode()))
        self.fork_worker()


def out_of_cpu(pid: int) -> bool:
    """Whether the (zombie) worker ``pid`` used up its CPU time. A call's hard ``RLIMIT_CPU`` is one
    second past its soft one; past the soft one the kernel sends SIGXCPU (raising the soft limit a
    second each time), and SIGKILL at the hard one: how a tool that ignores or blocks SIGXCPU ends."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        used = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
        with open(f"/proc/{pid}/limits", "rb") as limits:
            hard = next(line.split()[4] for line in limits if line.startswith(b"Max cpu time"))
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    return hard.isdigit() and used >= int(hard) - 1


def warm(source: str, walls: object) -> bool:
    """Load the modules a tool needs and compile it, so that both are cached before the next
    forks; whether a module was loaded (the workers forked before lack it)."""
    loaded = False
    # a module that fails to load fails the calls needing it (in their workers), not the pool
    with contextlib.suppress(Exception):
        loaded = preload_for(source)
    # the call reports it, located, when the tool runs; nothing a source holds may end the zygote
    with contextlib.suppress(Exception):
        compile_for(source, walls)
    return loaded


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the pool closed: nothing to tell
        with open(int(sys.argv[2]), "rb") as program:
            seccomp_filter = program.read()
        Zygote(socket.socket(fileno=int(sys.argv[1])), seccomp_filter).serve()
