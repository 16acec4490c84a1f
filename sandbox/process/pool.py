"""Pre-forked workers from a warm zygote, and one call through a worker under a deadline.

The pool keeps ``size`` workers ready; a worker that is done with is replaced after its call
(not during it, so that the fork does not compete with the call for CPU): its zygote forks the
replacement when the worker ends, and is asked for it only when the pool kills a worker. The parent enforces the wall-clock deadline with
SIGKILL (through a pidfd, so a recycled pid is never hit), answers the worker's RPCs by calling
``rpc(target, method, params)``, and turns every way a worker can end into a :class:`WorkerReply`:
the ``done`` message decoded and checked here, once, or the structured error of a worker that
died, overran or sent something malformed.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import queue
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.jail import (
    GET_BWRAP,
    GET_USERNS,
    bwrap_command,
    find_bwrap,
    missing_wall,
    namespace_walls,
    seccomp_program,
)
from runtime.leaving_workers import LeavingWorkers
from runtime.ready_stack import ReadyStack
from runtime.state import StateDelta
from sandbox.common.errors import (
    InvalidState,
    IsolationUnavailable,
    ProtocolBroken,
    Timeout,
    ToolpenError,
    WorkerCrashed,
    error_from_dict,
)
from sandbox.common.limits import Limits
from sandbox.common.walls import WallsMode
from sandbox.wire import (
    FORK_REQUEST,
    MAX_CONCURRENT_RPCS,
    WRITABLE_HOOK_VALUES,
    ProtocolError,
    Rpc,
    decode,
    encode,
    recv_frame,
    send_frame,
)

log = logging.getLogger(__name__)

PACKAGE_ROOT = str(Path(__file__).resolve().parents[1])
MAX_PACKET = 64 * 1024
EXIT_REPORT_WAIT = 1.0  # seconds to wait for the zygote's word on how a silent worker ended
FRAME_MARGIN = 1024 * 1024  # room for the JSON around a result, its state delta and logs
TAKE_WAIT = 0.5  # seconds between checks that the zygote is alive while waiting for a worker
HEAL_ROUNDS = 10  # TAKE_WAIT rounds a caller waits for a counted fork before it asks for one more
REMEMBERED_EXITS = 4096
LOG_NOTE_ROOM = 100  # the worker's "... [output truncated at N bytes]" note after the captured output
HAND_ATTEMPTS = 3  # workers tried beyond the pool's size before a call gives up
RPC_JOIN_GRACE = 5.0  # seconds past the deadline a call waits for the answers of calls its worker started
WARM_WAIT = 60.0  # seconds to wait for the zygote to warm a tool (loading numpy on a busy machine included)


@dataclass(frozen=True)
class WorkerReply:
    """A worker's answer to one call; ``error`` is None exactly when it succeeded."""

    output: Any = None
    error: ToolpenError | None = None
    state_delta: StateDelta = field(default_factory=StateDelta)
    logs: str = ""
    hook_values: dict[str, Any] = field(default_factory=dict)
    """A callback's in-place changes to its writable arguments (``input``, ``llm_request``, ``llm_response``)."""

    @property
    def success(self) -> bool:
        return self.error is None

    @classmethod
    def decode(cls, done: dict[str, Any]) -> WorkerReply:
        """Read a ``done`` message; raises ``ProtocolError`` when it is not the shape the wire promises."""
        logs = done.get("logs", "")
        if not isinstance(logs, str):
            raise ProtocolError("a reply's logs must be a string")
        if done.get("success") is False:
            return cls(error=_decode_error(done.get("error")), logs=logs)
        if done.get("success") is not True or "output" not in done:
            raise ProtocolError('a reply is {"success": true, "output", ...} or {"success": false, "error"}')
        try:
            delta = StateDelta.from_dict(done.get("state_delta"))
        except InvalidState as exc:
            raise ProtocolError(exc.message) from None
        hook_values = done.get("hook_values", {})
        if not isinstance(hook_values, dict) or not set(hook_values) <= set(WRITABLE_HOOK_VALUES):
            raise ProtocolError(f"a reply's hook_values name only {', '.join(WRITABLE_HOOK_VALUES)}")
        return cls(output=done["output"], state_delta=delta, logs=logs, hook_values=hook_values)


def _decode_error(error: Any) -> ToolpenError:
    if not (
        isinstance(error, dict)
        and isinstance(error.get("kind"), str)
        and isinstance(error.get("message"), str)
        and all(isinstance(error.get(key), int | None) for key in ("line", "col"))
    ):
        raise ProtocolError('a failed reply\'s error is {"kind", "message"[, "line", "col"]}')
    return error_from_dict(error)


@dataclass
class _Worker:
    pid: int
    sock: socket.socket
    pidfd: int
    jail: subprocess.Popen[bytes] | None  # bubblewrap's process (None: unjailed); the worker dies with it
    zygote: _Zygote  # the zygote that forked it
    walls: str | None = None  # a kept worker's walls mode: the mode of its first call, its only one

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)

    def close(self) -> None:
        self.sock.close()
        os.close(self.pidfd)


class _Zygote:
    """The zygote process (in the jail unless ``bwrap`` is None) and the thread that reads its control socket.

    That thread also starts the process and lives as long as it: bubblewrap's die-with-parent
    follows the thread that started it, so no caller's short-lived thread may start it.
    """

    def __init__(
        self,
        on_worker: Callable[[_Worker], None],
        on_exit: Callable[[int, int], None],
        bwrap: str | None,
        seccomp: bytes,
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
            process = _popen(
                command,
                pass_fds=[fd for fd in (theirs.fileno(), program, info_write) if fd >= 0],
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

    def request_fork(self, *, reuse: bool, retired: int = 0) -> None:
        """Ask for one more worker; ``retired``, the pid of a worker the pool is done with, is killed."""
        with self._send_lock:
            self.control.send(FORK_REQUEST.pack(b"fork", reuse, retired))

    def warm(self, source: str, walls: WallsMode) -> int:
        """Ask the zygote to warm a tool; the number to ``wait_warmed`` for."""
        with self._send_lock:
            self.control.send(encode({"op": "warm", "source": source, "walls": walls}))
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
            self.process.kill()
            self.process.wait()

    def _read(self) -> None:
        try:
            while True:
                data, fds, _, _ = socket.recv_fds(self.control, MAX_PACKET, 2)
                if not data:
                    break
                message = decode(data)
                if message.get("op") == "forked" and len(fds) == 2:
                    self._adopt(int(message["pid"]), fds[0], fds[1])
                elif message.get("op") == "exit":
                    self._on_exit(int(message["pid"]), int(message["code"]))
                elif message.get("op") == "warmed":
                    with self._warmed:
                        self._warms_done += 1
                        if message.get("loaded"):
                            self._warms_loading.add(self._warms_done)
                        self._warmed.notify_all()
        except (OSError, ProtocolError):
            pass  # closed by the pool, or the zygote died
        finally:
            with self._warmed:
                self.alive = False
                self._warmed.notify_all()

    def _adopt(self, pid: int, fd: int, pidfd: int) -> None:
        # the pid is the zygote's (the jail has its own PID namespace): only its pidfd reaches it
        self.delivered = True
        self._on_worker(
            _Worker(pid, socket.socket(fileno=fd), pidfd, self.process if self.jailed else None, self)
        )


def _bound_to_other_walls(worker: _Worker, walls: str | None) -> bool:
    """Whether a kept worker ran calls of another walls mode than this call's (None: not a call)."""
    return walls is not None and worker.walls is not None and worker.walls != walls


def _popen(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(command, **options)
    except OSError as exc:  # only the first word can be missing: bwrap, or the interpreter
        raise IsolationUnavailable(f"{command[0]} could not run: {exc.strerror}; {GET_BWRAP}") from None


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
    return b"".join(chunks)


class WorkerPool:
    """Workers forked from a warm zygote; ``run`` one call in one of them. Thread-safe."""

    def __init__(
        self,
        size: int = 2,
        reuse: bool = False,
        *,
        allow_weak_isolation: bool = False,
        bwrap: str | None = None,
    ) -> None:
        """``bwrap``: the bubblewrap to use (default: the bundled one, else the one on PATH)."""
        self.size = size
        self.reuse = reuse
        self.allow_weak_isolation = allow_weak_isolation
        self.weakened: dict[str, str] = {}  # the walls it runs without (allow_weak_isolation), and why
        self._bwrap = bwrap or find_bwrap()
        if self._bwrap is None:
            self._weaken("the jail", f"bubblewrap not found; {GET_BWRAP}")
        try:
            self._seccomp = seccomp_program()
        except IsolationUnavailable as exc:
            self._weaken("seccomp", exc.message)
            self._seccomp = b""
        # last in, first out: the worker prepared last is the one whose pages are likeliest still cached
        self._ready: ReadyStack[_Worker] = ReadyStack()
        self._leaving = LeavingWorkers()
        self._exits: dict[int, int] = {}
        self._exit_seen = threading.Condition()
        self._lock = threading.Lock()
        self._warm_sources: dict[tuple[str, WallsMode], None] = {}
        self._closed = False
        self._in_use = 0
        self._zygote = self._start_zygote()

    def run(self, job: dict[str, Any], limits: Limits, rpc: Rpc) -> WorkerReply:
        """Run ``job`` (``source``, ``entry``, ``args``, ``context``, ``walls``) in a worker; never raises for its faults.

        A source not warmed yet is warmed first (``warm``): a worker under the language wall
        imports nothing, so what the source needs must be in the zygote.
        """
        walls: WallsMode = job.get("walls") or "all"
        if (job["source"], walls) not in self._warm_sources:
            self.warm(job["source"], walls, recycle=False)
        with self._lock:
            self._in_use += 1
        try:
            return self._exchange(job | {"op": "call", "limits": limits.to_dict()}, limits, rpc)
        finally:
            with self._lock:
                self._in_use -= 1

    @property
    def in_use(self) -> int:
        """Calls running in (or waiting for) a worker of this pool now."""
        return self._in_use

    @property
    def alive(self) -> bool:
        """The pool can fork workers: open, and its zygote running."""
        return not self._closed and self._zygote.alive and self._zygote.process.poll() is None

    def warm(self, source: str, walls: WallsMode = "all", *, recycle: bool = True) -> None:
        """Compile a tool (for ``walls``) in the zygote, and load the libraries it needs, so that
        workers forked from now on have them; returns once the zygote has, the workers forked
        before replaced (``recycle=False``: only if the zygote loaded a library, which they lack)."""
        with self._lock:
            self._warm_sources[source, walls] = None
            zygote = self._zygote
            try:
                number = zygote.warm(source, walls)
            except OSError:  # it has died: the zygote replacing it warms every source recorded
                zygote.alive = False
                number = 0
        if not number:
            self._restart_dead_zygote()
        elif zygote.wait_warmed(number) or recycle:
            self._recycle_ready()

    def probe_walls(self) -> dict[str, dict[str, str]]:
        """Which walls a worker has in force: ``{"active": {...}, "missing": {...}}``."""
        reply = self._exchange({"op": "walls"}, Limits(), _no_rpc)
        if not reply.success or not isinstance(reply.output, dict):
            raise WorkerCrashed("the worker ended before reporting its walls")
        active, missing = namespace_walls(reply.output.get("namespaces") or {})
        if self._bwrap is not None:
            active["jail"] = f"bubblewrap ({self._bwrap})"
        missing |= {wall: f"{why} (allow_weak_isolation)" for wall, why in self.weakened.items()}
        return {"active": active | reply.output["active"], "missing": missing | reply.output["missing"]}

    def close(self) -> None:
        """Stop the zygote and every ready worker."""
        with self._lock:
            self._closed = True
            self._zygote.close()
        self._leaving.close()
        self._recycle_ready()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _start_zygote(self) -> _Zygote:
        try:
            zygote = _Zygote(self._deliver, self._record_exit, self._bwrap, self._seccomp)
        except IsolationUnavailable as exc:
            self._weaken("the jail", exc.message)
            self._bwrap = None
            zygote = _Zygote(self._deliver, self._record_exit, None, self._seccomp)
        for source, walls in self._warm_sources:
            zygote.warm(source, walls)
        self._pending = self.size
        for _ in range(self.size):
            zygote.request_fork(reuse=self.reuse)
        return zygote

    def _weaken(self, wall: str, reason: str) -> None:
        missing_wall(wall, reason, allow_weak=self.allow_weak_isolation)
        self.weakened[wall] = reason

    def _deliver(self, worker: _Worker) -> None:
        with self._lock:
            # exact, never clamped: a worker that ended by itself is replaced at once, and the
            # pool may count that replacement (retiring the worker) only after it has arrived
            self._pending -= 1
        self._ready.put(worker)

    def _let_go(self, worker: _Worker) -> None:
        """Close a single-use worker that answered a call under the language wall: it exits right
        after its ``done`` (``worker.serve``: no tool code runs after it), and its zygote replaces
        it when it does, unasked. Nothing is sent: the caller's path ends here. Until it is seen
        to exit it is watched, and killed if it stays (``leaving_workers``)."""
        with self._lock:
            current = not self._closed and worker.zygote is self._zygote
            if current:
                self._pending += 1
        if not current:
            self._retire(worker)
            return
        worker.sock.close()
        self._leaving.add(worker)

    def _retire(self, worker: _Worker) -> None:
        """Close a worker and have it killed and replaced.

        Killed, not only hung up on: a worker under ``walls="process"`` can send its own ``done``
        early and sleep on (no CPU time spent), holding memory after its call ended. Its zygote
        kills it when asked for the replacement (one message, instead of a signal from here and
        the zygote's report of it), unless that zygote has been replaced since.
        """
        # the replacement is forked after the call, not during it: on a small machine the
        # fork and the new worker's warm-up would otherwise compete with the call for CPU
        if not self._replace(worker):
            worker.kill()
            self._request_forks(1)
        worker.close()

    def _replace(self, worker: _Worker) -> bool:
        """Ask the zygote that forked ``worker`` to kill it and fork another (or none, if it has
        ended and been replaced already); False if it can't."""
        with self._lock:
            if self._closed or worker.zygote is not self._zygote:
                return False
            try:
                self._zygote.request_fork(reuse=self.reuse, retired=worker.pid)
            except OSError:
                return False
            self._pending += 1
            return True

    def _request_forks(self, count: int) -> None:
        with self._lock:
            if self._closed:
                return
            with contextlib.suppress(OSError):
                for _ in range(count):
                    self._zygote.request_fork(reuse=self.reuse)
                    self._pending += 1

    def _take(self) -> _Worker:
        worker = self._ready.take_nowait()
        if worker is not None:
            return worker
        # none ready and none on its way (a burst, or a nested tools.<name>() call while the
        # caller holds one): fork one now rather than wait for a finished call's refill
        if self._pending <= 0:
            self._request_forks(1)
        rounds = 0
        while (worker := self._ready.take(TAKE_WAIT)) is None:
            self._restart_dead_zygote()
            rounds += 1
            # every fork counted is delivered (with its pidfd) unless the zygote died; should the
            # count still be wrong, a caller waiting this long asks for one more rather than forever
            if self._pending <= 0 or rounds % HEAL_ROUNDS == 0:
                self._request_forks(1)
        return worker

    def _restart_dead_zygote(self) -> None:
        with self._lock:
            if self._closed:
                raise WorkerCrashed("the worker pool is closed")
            if not self._zygote.alive:
                last_words = self._zygote.last_words()
                self._zygote.close()
                if not self._zygote.delivered:
                    raise WorkerCrashed(
                        f"the zygote failed to start (exit code {self._zygote.process.returncode}): {last_words}"
                    )
                log.warning(
                    "toolpen zygote ended (exit %s); starting a new one. Its last words: %s",
                    self._zygote.process.returncode,
                    last_words,
                )
                self._zygote = self._start_zygote()

    def _recycle_ready(self) -> None:
        """Close the ready workers: each exits, and its zygote (unless closed) replaces it."""
        for worker in self._ready.drain():
            if worker.zygote is self._zygote:
                with self._lock:
                    self._pending += 1
            worker.close()

    def _record_exit(self, pid: int, code: int) -> None:
        with self._exit_seen:
            self._exits[pid] = code
            if len(self._exits) > REMEMBERED_EXITS:
                del self._exits[next(iter(self._exits))]
            self._exit_seen.notify_all()

    def _exit_code(self, pid: int) -> int | None:
        with self._exit_seen:
            self._exit_seen.wait_for(lambda: pid in self._exits, timeout=EXIT_REPORT_WAIT)
            return self._exits.pop(pid, None)

    def _exchange(self, message: dict[str, Any], limits: Limits, rpc: Rpc) -> WorkerReply:
        """Send ``message`` to a worker and converse until its ``done``; the worker is then retired or kept."""
        walls = (message.get("walls") or "all") if message.get("op") == "call" else None
        for _ in range(self.size + HAND_ATTEMPTS):
            worker = self._take()
            # a kept worker that spoke after its done, or that ran calls of the other walls mode:
            # objects of a walled tool must not outlive its call into one whose checks are off
            while self.reuse and (_has_more(worker.sock) or _bound_to_other_walls(worker, walls)):
                worker.kill()
                self._retire(worker)
                worker = self._take()
            outcome = self._converse(worker, message, limits, rpc)
            if outcome is not None:
                reply, answered = outcome
                if answered and self.reuse:
                    worker.walls = walls or worker.walls
                    self._ready.put(worker)
                elif answered and walls == "all":
                    self._let_go(worker)
                else:
                    self._retire(worker)
                return reply
            self._retire(worker)
        return WorkerReply(error=WorkerCrashed("no worker could be reached"))

    def _converse(
        self, worker: _Worker, message: dict[str, Any], limits: Limits, rpc: Rpc
    ) -> tuple[WorkerReply, bool] | None:
        """Send ``message``, answer RPCs until ``done``; returns the reply and whether the worker answered.

        Nothing from the worker is trusted beyond its own call: a frame that is malformed, over
        the size cap, out of turn (not an ``rpc`` or the ``done``), an ``rpc`` reusing an id,
        a ``done`` of the wrong shape or followed by more, each ends the call with a
        ``protocol`` error and kills the worker; so do logs longer than the call's output limit.
        None: the worker died with its jail (the zygote's) before it read the message or said a
        word; a worker in the jail reaches nothing but through RPCs, so nothing of the call had
        an effect, and another worker may take it.
        """
        deadline = time.monotonic() + limits.wall_time
        # the worker checks these sizes itself; the host does not take its word for it
        max_frame = limits.result_size + limits.state_size + limits.output + FRAME_MARGIN
        last_id = 0
        heard = False
        answers = _Answers(worker.sock, rpc, deadline)
        try:
            # with the deadline: a worker that stops reading blocks no send past it
            send_frame(worker.sock, message, deadline=deadline)
            while True:
                reply = recv_frame(worker.sock, deadline=deadline, max_size=max_frame)
                if reply is None:
                    if not heard and worker.jail is not None and worker.jail.poll() is not None:
                        return None  # its jail went down before it said a word: no RPC, so no effect
                    return WorkerReply(error=self._why_it_ended(worker, limits)), False
                heard = True
                if reply.get("op") == "done":
                    if not answers.all_sent():
                        raise ProtocolError("done before the answers to the calls it started")
                    done = WorkerReply.decode(reply)
                    if len(done.logs) > limits.output + LOG_NOTE_ROOM:
                        raise ProtocolError("logs over the call's output limit")
                    if _has_more(worker.sock):
                        raise ProtocolError("a frame after done")
                    return done, True
                if reply.get("op") != "rpc":
                    raise ProtocolError(f"unexpected message {repr(reply.get('op'))[:40]}")
                last_id = _checked_rpc(reply, last_id)
                answers.answer(reply)
        except TimeoutError:
            worker.kill()
            timeout = Timeout(f"the call ran past its wall time of {limits.wall_time:.3g} s")
            return WorkerReply(error=timeout), False
        except ProtocolError as exc:
            worker.kill()
            log.warning("toolpen worker %d broke the protocol: %s", worker.pid, exc)
            return WorkerReply(error=ProtocolBroken(f"the worker broke the protocol: {exc}")), False
        except OSError as exc:
            if not heard and isinstance(exc, BrokenPipeError | ConnectionResetError):
                return None  # closed with our message unread (a reset): it never started
            worker.kill()
            log.warning("toolpen worker %d broke off the call: %s", worker.pid, exc)
            return WorkerReply(error=WorkerCrashed("the worker broke off the call")), False
        finally:
            answers.finish()  # no call the worker started outlives its own call

    def _why_it_ended(self, worker: _Worker, limits: Limits) -> ToolpenError:
        code = self._exit_code(worker.pid)
        if code == -signal.SIGXCPU:
            return Timeout(f"the call used more than its CPU time of {limits.cpu_time:.3g} s")
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            return WorkerCrashed(f"the worker was killed by {name}")
        detail = "" if code is None else f" (exit code {code})"
        return WorkerCrashed(f"the worker ended without answering{detail}")


def _checked_rpc(message: dict[str, Any], last_id: int) -> int:
    """The id of a well-formed ``rpc`` frame, above every earlier id of the call (so never reused)."""
    request_id = message.get("id")
    if type(request_id) is not int or request_id <= last_id:
        raise ProtocolError("an rpc id must be an integer above the call's earlier ones")
    if not (
        isinstance(message.get("target"), str)
        and isinstance(message.get("method"), str)
        and isinstance(message.get("params"), dict)
    ):
        raise ProtocolError('an rpc is {"op", "id", "target": str, "method": str, "params": {...}}')
    return request_id


def _has_more(sock: socket.socket) -> bool:
    """True when the worker has sent bytes the host has not read (its end of stream does not count)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    if not poller.poll(0):
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except OSError:
        return False


class _Answers:
    """The host's side of one call's RPCs: answered in the conversing thread, or, for an rpc the
    worker marked ``concurrent`` (``async_tools``), in a thread of its own (in the caller's
    context, at most ``MAX_CONCURRENT_RPCS`` at once), so that the worker's started calls overlap.
    Answers share the socket under a lock."""

    def __init__(self, sock: socket.socket, rpc: Rpc, deadline: float) -> None:
        self._sock = sock
        self._rpc = rpc
        self._deadline = deadline  # the call's: no answer is sent past it
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._started: set[int] = set()
        self._sent: set[int] = set()

    def answer(self, message: dict[str, Any]) -> None:
        """Answer one rpc (checked by ``_checked_rpc``); raises ``TimeoutError`` past the call's deadline."""
        if message.get("concurrent") is not True:
            self._answer(message)
            return
        self._threads = [thread for thread in self._threads if thread.is_alive()]
        while len(self._threads) >= MAX_CONCURRENT_RPCS:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("deadline passed waiting to answer a call")
            self._threads[0].join(remaining)
            self._threads = [thread for thread in self._threads if thread.is_alive()]
        self._started.add(message["id"])
        run = contextvars.copy_context().run
        thread = threading.Thread(target=run, args=(self._answer, message), name="toolpen-rpc", daemon=True)
        thread.start()
        self._threads.append(thread)

    def all_sent(self) -> bool:
        """Every concurrent rpc has its answer on the socket (a worker says ``done`` only after reading them)."""
        with self._lock:
            return self._started <= self._sent

    def finish(self) -> None:
        """Wait for the threads still answering (their calls run under the same deadline)."""
        for thread in self._threads:
            thread.join(max(0.0, self._deadline - time.monotonic()) + RPC_JOIN_GRACE)

    def _answer(self, message: dict[str, Any]) -> None:
        """Run one RPC in the host and send its result or a structured error."""
        request_id, target, method = message["id"], message["target"], message["method"]
        try:
            result = self._rpc(target, method, message["params"])
        except ToolpenError as exc:
            error = exc.to_dict()
        except Exception:
            log.exception("toolpen rpc %r.%r failed", target, method)
            error = {"kind": "internal", "message": "the host failed to answer this call"}
        else:
            try:
                self._send({"op": "rpc_result", "id": request_id, "result": result})
                return
            except (TypeError, ValueError):
                log.exception("toolpen rpc %r.%r answered with something that is not JSON", target, method)
                error = {"kind": "internal", "message": "the host's answer is not JSON"}
        self._send({"op": "rpc_error", "id": request_id, "error": error})

    def _send(self, message: dict[str, Any]) -> None:
        with self._lock:
            if message["id"] not in self._started:
                send_frame(self._sock, message, deadline=self._deadline)
                return
            # OSError: a worker killed meanwhile, or the deadline passed (TimeoutError); its call has ended
            with contextlib.suppress(OSError):
                send_frame(self._sock, message, deadline=self._deadline)
            self._sent.add(message["id"])


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise WorkerCrashed("a walls probe makes no calls")
