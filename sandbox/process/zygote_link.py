"""The host's link to the zygote: starting it in the jail, asking it for workers and warm-ups, reading its answers.

The zygote itself (the process that forks workers) is ``sandbox.process.zygote``; this is the
pool's side of its control socket (``SOCK_SEQPACKET``): :class:`ZygoteLink` starts the zygote
through bubblewrap (``sandbox.process.bwrap``) with the seccomp program the host built
(``sandbox.process.seccomp``), and a thread of its own reads what the zygote sends: each
``forked`` worker arrives as a :class:`WorkerLink` (its socket and a pidfd, ``SCM_RIGHTS``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.common.errors import IsolationUnavailable
from sandbox.common.walls import WallsMode
from sandbox.messages import (
    FORK_REQUEST,
    Call,
    Drop,
    Exit,
    Forked,
    Image,
    Imaged,
    Warm,
    Warmed,
    decode_from_zygote,
)
from sandbox.process.bwrap import GET_BWRAP, GET_USERNS, bwrap_command
from sandbox.process.reaper import __file__ as REAPER
from sandbox.wire import ProtocolError, decode, encode

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
MAX_PACKET = 64 * 1024
WARM_WAIT = 60.0  # seconds to wait for the zygote to warm a tool (loading numpy on a busy machine included)


@dataclass
class WorkerLink:
    """The host's end of one worker: its socket, a pidfd of it, the jail it lives in."""

    pid: int
    sock: socket.socket
    pidfd: int
    jail: subprocess.Popen[bytes] | None  # bubblewrap's process (None: unjailed); the worker dies with it
    zygote: ZygoteLink  # the zygote that forked it
    walls: str | None = None  # a kept worker's walls mode: the mode of its first call, its only one
    image: int = 0  # the tool image it was forked from (0: the zygote itself)

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def close(self) -> None:
        self.sock.close()
        os.close(self.pidfd)


class ZygoteLink:
    """The host's link to a zygote process (``sandbox.process.zygote.Zygote``, in the jail unless
    ``bwrap`` is None): its control socket, and the thread that reads it.

    That thread also starts the process and lives as long as it: bubblewrap's die-with-parent
    follows the thread that started it, so no caller's short-lived thread may start it.
    """

    def __init__(
        self,
        on_worker: Callable[[WorkerLink], None],
        on_exit: Callable[[int, int], None],
        bwrap: str | None,
        seccomp: bytes,
        on_image: Callable[[Imaged], None] = lambda news: None,
    ) -> None:
        self.jailed = bwrap is not None
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the zygote; bwrap's refusal, its last words)
        self.alive = True
        self.delivered = False
        self._send_lock = threading.Lock()
        self._warms_sent = 0
        self._warms_done = 0
        self._warms_loading: set[int] = set()  # the warms that loaded a library into the zygote
        self._warmed = threading.Condition()
        self._on_worker = on_worker
        self._on_exit = on_exit
        self._on_image = on_image
        started: queue.Queue[BaseException | None] = queue.Queue()
        threading.Thread(
            target=self._run, args=(theirs, bwrap, seccomp, started), name="toolpen-zygote", daemon=True
        ).start()
        failure = started.get()
        if failure is not None:
            self.stderr.close()
            raise failure

    def _run(
        self,
        theirs: socket.socket,
        bwrap: str | None,
        seccomp: bytes,
        started: queue.Queue[BaseException | None],
    ) -> None:
        try:
            self.process = self._start(theirs, bwrap, seccomp)
        except BaseException as exc:  # handed to the constructor, which raises it
            self.alive = False
            self.control.close()
            started.put(exc)
            return
        started.put(None)
        self._read()

    def _start(self, theirs: socket.socket, bwrap: str | None, seccomp: bytes) -> subprocess.Popen[bytes]:
        program, program_write = os.pipe()  # a few KiB: the pipe holds it until the zygote reads it
        os.write(program_write, seccomp)
        os.close(program_write)
        command = [sys.executable, "-m", "sandbox.process.zygote", str(theirs.fileno()), str(program)]
        info_read, info_write = os.pipe() if bwrap is not None else (-1, -1)
        try:
            if bwrap is not None:
                command = [*bwrap_command(bwrap, PACKAGE_ROOT, info_fd=info_write), *command]
            passed = [fd for fd in (theirs.fileno(), program, info_write) if fd >= 0]
            process = _popen(
                [*reaper_command(passed), *command],
                pass_fds=passed,
                close_fds=True,
                env={
                    "PYTHONPATH": PACKAGE_ROOT,
                    "PYTHONUTF8": "1",
                    "LC_ALL": "C.UTF-8",
                    "PYTHONNOUSERSITE": "1",
                },
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=self.stderr,
                stderr=self.stderr,
            )
            if bwrap is not None:
                os.close(info_write)
                info_write = -1
            if bwrap is not None and not _read_all(info_read):  # bwrap writes it once the jail stands
                process.wait()
                raise IsolationUnavailable(
                    f"bubblewrap could not build the jail: {self.last_words()}; {GET_USERNS}"
                )
            return process
        finally:
            theirs.close()
            for fd in (program, info_read, info_write):
                if fd >= 0:
                    os.close(fd)

    def last_words(self) -> str:
        """What bubblewrap or the zygote last wrote to stderr (at most 2,000 characters)."""
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace").strip()[-2000:]

    def request_fork(self, *, reuse: bool, retired: int = 0, image: int = 0) -> None:
        """Ask for one more worker (``image``: from that tool image); ``retired``, the pid of a
        worker the pool is done with, is killed."""
        with self._send_lock:
            self.control.send(FORK_REQUEST.pack(b"fork", reuse, retired, image))

    def start_image(self, number: int, job: Call) -> None:
        """Ask the zygote to start tool image ``number`` for ``job``'s tool (its news comes to ``on_image``)."""
        with self._send_lock:
            self.control.send(encode(Image(number, job).encode()))

    def drop_image(self, number: int) -> None:
        """Ask the zygote to end tool image ``number``."""
        with self._send_lock:
            self.control.send(encode(Drop(number).encode()))

    def warm(self, source: str, walls: WallsMode) -> int:
        """Ask the zygote to warm a tool; the number to ``wait_warmed`` for."""
        with self._send_lock:
            self.control.send(encode(Warm(source, walls).encode()))
            self._warms_sent += 1
            return self._warms_sent

    def wait_warmed(self, number: int) -> bool:
        """Wait until the zygote has warmed the ``number``-th tool sent (or died, or ``WARM_WAIT``
        passed); whether that warm loaded a library (True when unknown)."""
        with self._warmed:
            done = self._warmed.wait_for(
                lambda: self._warms_done >= number or not self.alive, timeout=WARM_WAIT
            )
            loaded = number in self._warms_loading
            self._warms_loading.discard(number)
            return loaded or not done or self._warms_done < number

    def close(self) -> None:
        self.stderr.close()
        # shutdown, not just close: the reader thread is blocked in recv on this socket, and a
        # close alone neither wakes it nor lets the zygote see the end of its control socket
        with contextlib.suppress(OSError):
            self.control.shutdown(socket.SHUT_RDWR)
        self.control.close()
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.terminate()  # the reaper kills whatever the jail runs, in whatever state
            self.process.wait()

    def _read(self) -> None:
        try:
            while True:
                data, fds, _, _ = socket.recv_fds(self.control, MAX_PACKET, 2)
                if not data:
                    break
                message = decode_from_zygote(decode(data))
                if isinstance(message, Forked) and len(fds) == 2:
                    self._adopt(message.pid, fds[0], fds[1], message.image)
                elif isinstance(message, Imaged):
                    self._on_image(message)
                elif isinstance(message, Exit):
                    self._on_exit(message.pid, message.code)
                elif isinstance(message, Warmed):
                    with self._warmed:
                        self._warms_done += 1
                        if message.loaded:
                            self._warms_loading.add(self._warms_done)
                        self._warmed.notify_all()
        except (OSError, ProtocolError):
            pass  # closed by the pool, or the zygote died
        finally:
            with self._warmed:
                self.alive = False
                self._warmed.notify_all()

    def _adopt(self, pid: int, fd: int, pidfd: int, image: int) -> None:
        # the pid is the zygote's (the jail has its own PID namespace): only its pidfd reaches it
        self.delivered = True
        jail = self.process if self.jailed else None
        self._on_worker(WorkerLink(pid, socket.socket(fileno=fd), pidfd, jail, self, image=image))


def reaper_command(passed: list[int]) -> list[str]:
    """The reaper (``sandbox.process.reaper``) that runs the command after it and leaves nothing behind."""
    return [sys.executable, "-I", "-S", REAPER, str(os.getpid()), ",".join(map(str, passed)), "--"]


def _popen(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
    started = command[command.index("--") + 1]  # the reaper runs it: its absence shows only here
    if not os.access(started, os.X_OK):
        raise IsolationUnavailable(f"{started} could not run: {os.strerror(errno.ENOENT)}; {GET_BWRAP}")
    try:
        return subprocess.Popen(command, **options)
    except OSError as exc:  # only the first word can be missing: bwrap, or the interpreter
        raise IsolationUnavailable(f"{command[0]} could not run: {exc.strerror}; {GET_BWRAP}") from None


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
    return b"".join(chunks)
