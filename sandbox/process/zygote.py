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
from dataclasses import replace
from socket import SCM_RIGHTS, SOL_SOCKET
from typing import Any

from sandbox.common.limits import Limits
from sandbox.language.arming import end_import_exemption
from sandbox.language.module_allowlist import ALLOWED_MODULES
from sandbox.language.namespace import install_process_hooks
from sandbox.messages import (
    FORK_REQUEST,
    FORKED_PACKET,
    IMAGE_FORKED_PACKET,
    Call,
    Drop,
    Exit,
    Forked,
    Image,
    Imaged,
    Warm,
    Warmed,
    decode_for_zygote,
    decode_from_image,
)
from sandbox.process.forking import fork, reseed
from sandbox.process.isolation import ZygoteWalls, isolate_image, isolate_zygote
from sandbox.process.tool_image import ToolImage, build
from sandbox.process.warmup import LIBRARY_PACKAGES, preload, preload_for, settle, warm_up_preparation
from sandbox.process.worker import compile_for, failure_of, run_warm_up, serve
from sandbox.wire import ProtocolError, decode, encode

MAX_PACKET = 4 * 1024 * 1024
MAX_IMAGE_PACKET = 64 * 1024  # a tool image's packets: fork requests from the zygote; its news to it
EVERY_ALLOWED_IMPORT = "\n".join(
    f"import {name}" for name in sorted(ALLOWED_MODULES) if name.partition(".")[0] not in LIBRARY_PACKAGES
)
"""What an unjailed root zygote loads before it drops its privileges (the libraries stay on demand)."""
FDS = struct.Struct("2i")  # an SCM_RIGHTS payload: the worker's socket and its pidfd


class ForkServer:
    """Forks workers on request, replaces each that ends, kills those retired: the zygote's loop,
    and a tool image's (``ImageServer``), each serving its control socket."""

    image: ToolImage | None = None  # the tool image the workers are forked from (None: the zygote)
    preparing = "all"  # the walls mode of the tools warmed last: what its idle workers prepare for

    def __init__(self, control: socket.socket, walls: ZygoteWalls, packet_size: int) -> None:
        self.control = control
        self.walls = walls
        self.workers: dict[int, int] = {}  # pidfd -> pid of each live worker
        self.pidfds: dict[int, int] = {}  # pid -> pidfd of each live worker
        self.retired: set[int] = set()  # live workers the pool is done with: their end is no news
        self.reuse = False  # whether the pool keeps its workers for more calls (each request says)
        # one buffer for every control message, kept out of the workers (they never read it)
        self.packet = mmap.mmap(-1, packet_size)
        self.packet.madvise(mmap.MADV_DONTFORK)
        self.events = select.epoll()
        self.events.register(control.fileno(), select.EPOLLIN)

    def serve(self) -> None:
        """Answer control messages and reap workers until the other end hangs up.

        The loop per worker is kept lean (a binary fork request, the answer formatted as bytes, raw
        descriptors): every page the zygote writes while a worker shares it is copied, about 160 per
        worker with JSON and socket objects.
        """
        control = self.control.fileno()
        packet = self.packet
        while True:
            for fd, _ in self.events.poll():
                if fd == control:
                    size = self.control.recv_into(packet)
                    if size == FORK_REQUEST.size and packet[:4] == b"fork":
                        _, self.reuse, retired, image = FORK_REQUEST.unpack_from(packet)
                        if image:
                            self.to_image(image, retired)
                        elif not retired or self.retire(retired):
                            self.fork_worker()
                    elif not size:
                        self.hung_up()
                        return
                    else:
                        self.handle(decode(packet[:size]))
                elif fd in self.workers:
                    self.reap(fd)
                else:
                    self.from_image(fd)

    def handle(self, message: dict[str, Any]) -> None:
        """A JSON control message (the zygote's: ``Warm``, ``Image``, ``Drop``)."""

    def hung_up(self) -> None:
        """The other end closed the control socket (a tool image's: wait for its workers first)."""

    def to_image(self, number: int, retired: int) -> None:
        """A fork request for tool image ``number`` (the zygote's: handed on to that image)."""

    def from_image(self, fd: int) -> None:
        """A packet from a tool image's socket (the zygote's: handed on to the pool)."""

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
                # family and type given: the socket object asks the kernel for neither
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fileno=child_end)
                serve(sock, reuse=self.reuse, zygote=self.walls, image=self.image, walls=self.preparing)
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
        # a zombie still (its /proc is readable); None: an event of a descriptor closed and reused
        # earlier in the same round
        ended = os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if ended is None:
            return
        self.events.unregister(pidfd)
        pid = self.workers.pop(pidfd)
        del self.pidfds[pid]
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


class Zygote(ForkServer):
    """The fork server of a pool, and of its tool images; one per pool."""

    def __init__(self, control: socket.socket, seccomp_filter: bytes) -> None:
        install_process_hooks()
        preload()
        if os.geteuid() == 0:  # unjailed, as root: the user it drops to may not read the modules later
            preload_for(EVERY_ALLOWED_IMPORT)
        install_process_hooks(worker=True)  # armed: from here on the hooks check everything this process does
        run_warm_up()
        warm_up_preparation()  # what every worker runs before its job, compiled and specialized here
        super().__init__(control, isolate_zygote(seccomp_filter), MAX_PACKET)
        # fd -> number, pidfd, socket of each tool image
        self.images: dict[int, tuple[int, int, socket.socket]] = {}
        self.image_sockets: dict[int, int] = {}  # number -> fd of each tool image's socket
        self.built: set[int] = set()  # the images whose module has run (their news said so)
        self.dropped: set[int] = set()  # the images the pool dropped: ending once their workers have
        settle(self.preparing)

    def handle(self, message: dict[str, Any]) -> None:
        request = decode_for_zygote(message)
        if isinstance(request, Warm):
            self.preparing = "process" if request.walls == "process" else "all"
            loaded = warm(request.source, request.walls)
            settle(self.preparing)  # what it loaded joins the warm heap
            self.control.send(encode(Warmed(loaded).encode()))
        elif isinstance(request, Image):
            self.start_image(request.number, request.job)
        elif isinstance(request, Drop) and request.number in self.image_sockets:
            self.drop_image(request.number)

    def start_image(self, number: int, job: Call) -> None:
        """Fork tool image ``number``: it walls itself, runs the tool's module, and serves a socket
        of its own, whose packets this zygote hands on to the pool."""
        if number in self.image_sockets:
            return
        ours, theirs = (end.detach() for end in _socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET))
        pid = fork()
        if pid == 0:
            exit_code = 1
            try:
                os.close(ours)
                reseed()
                ImageServer(socket.socket(fileno=theirs), self.walls, job).serve()
                exit_code = 0
            finally:
                os._exit(exit_code)
        os.close(theirs)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, 0, fileno=ours)
        sock.setblocking(False)  # an event of a descriptor reused in the same round finds nothing to read
        self.images[ours] = (number, os.pidfd_open(pid), sock)
        self.image_sockets[number] = ours
        self.events.register(ours, select.EPOLLIN)

    def to_image(self, number: int, retired: int) -> None:
        fd = self.image_sockets.get(number)
        if fd is not None:
            with contextlib.suppress(OSError):
                self.images[fd][2].send(FORK_REQUEST.pack(b"fork", False, retired, 0))

    def from_image(self, fd: int) -> None:
        """Hand a tool image's packet on to the pool, stamped with its number; the image ran tool
        code, so its packet is decoded and checked, never passed on as it came."""
        if fd not in self.images:  # ended earlier in the same round of events
            return
        number, _, sock = self.images[fd]
        try:
            data, fds, _, _ = socket.recv_fds(sock, MAX_IMAGE_PACKET, 2)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        try:
            message = decode_from_image(decode(data)) if data else None
        except ProtocolError:
            message = None
        try:
            if not data:
                self.end_image(fd, report=number not in self.dropped)
            elif number in self.dropped:
                pass  # its workers' descriptors are closed below: a worker forked now exits at once
            elif isinstance(message, Forked) and len(fds) == 2:
                self.control.sendmsg(
                    [IMAGE_FORKED_PACKET % (message.pid, number)],
                    [(SOL_SOCKET, SCM_RIGHTS, FDS.pack(*fds))],
                )
            elif isinstance(message, Exit):
                self.control.send(encode(message.encode()))
            elif isinstance(message, Imaged):
                self.built.add(number)
                self.control.send(encode(Imaged(number, message.error).encode()))
        finally:
            for received in fds:
                os.close(received)

    def drop_image(self, number: int) -> None:
        """End a tool image the pool no longer wants: one whose module has run is told so (its
        socket shut) and exits once its workers have, which it reaps (a worker outliving its image
        would be nobody's child to reap); one still running its module is killed."""
        self.dropped.add(number)
        fd = self.image_sockets[number]
        if number not in self.built:
            self.end_image(fd, report=False)
            return
        with contextlib.suppress(OSError):
            self.images[fd][2].shutdown(socket.SHUT_WR)

    def end_image(self, fd: int, *, report: bool) -> None:
        """Kill and reap a tool image (one whose socket reached its end has exited, or is exiting);
        ``report``: tell the pool."""
        number, pidfd, sock = self.images.pop(fd)
        del self.image_sockets[number]
        self.built.discard(number)
        self.dropped.discard(number)
        self.events.unregister(fd)
        sock.close()
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PIDFD, pidfd, os.WEXITED)
        os.close(pidfd)
        if report:
            self.control.send(encode(Imaged(number, ended=True).encode()))


class ImageServer(ForkServer):
    """A tool image: a fork of the zygote, walled as a worker is, that runs one tool's module-level
    code (``tool_image.build``) and then forks that tool's workers from itself."""

    def __init__(self, control: socket.socket, walls: ZygoteWalls, job: Call) -> None:
        isolate_image(control.fileno(), walls)
        end_import_exemption()
        # /dev/null is on 0, 1 and 2 now (isolate_image closed the zygote's descriptor of it)
        super().__init__(control, replace(walls, devnull=0), MAX_IMAGE_PACKET)
        try:
            self.image = build(job)
            error = None
        except BaseException as exc:  # the tool's failure, reported as its call would report it
            error = failure_of(exc, Limits(**(job.limits or {}))).to_dict()
        control.send(encode(Imaged(0, error).encode()))
        if error is not None:
            raise SystemExit(1)
        settle(self.preparing)

    def hung_up(self) -> None:
        """Dropped: exit once every worker has (each ends with its call, or at once when ready: the
        pool closed those), so that none outlives its parent unreaped."""
        for pidfd in list(self.workers):
            with contextlib.suppress(ChildProcessError):
                os.waitid(os.P_PIDFD, pidfd, os.WEXITED)


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
