"""One call with one worker: send the job, answer its RPCs, read its reply, under the call's deadline.

Nothing from the worker is trusted beyond its own call: a frame that is malformed, over the
size cap, out of turn, an ``rpc`` of the wrong shape or reusing an id, a ``done`` of the wrong
shape or followed by more, each ends the call with a ``protocol`` error and SIGKILLs the worker
(through its pidfd, so a recycled pid is never hit); so does the deadline, with ``timeout``.
The RPCs are answered by ``rpc(target, method, params)``: in the conversing thread, or, for one
the worker marked ``concurrent`` (``async_tools``), in a thread of its own (:class:`RpcAnswers`).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import select
import signal
import socket
import threading
import time
from collections.abc import Callable

from sandbox.common.errors import ProtocolBroken, Timeout, ToolpenError, WorkerCrashed
from sandbox.common.limits import Limits
from sandbox.messages import DONE, RPC, Call, Done, Rpc, RpcError, RpcRequest, RpcResult, WallsQuery, kind_of
from sandbox.process.zygote_link import WorkerLink
from sandbox.wire import ProtocolError, recv_frame, send_frame

log = logging.getLogger(__name__)

FRAME_MARGIN = 1024 * 1024  # room for the JSON around a result, its state delta and logs
LOG_NOTE_ROOM = 100  # the worker's "... [output truncated at N bytes]" note after the captured output
RPC_JOIN_GRACE = 5.0  # seconds past the deadline a call waits for the answers of calls its worker started
MAX_CONCURRENT_RPCS = 8
"""Calls of one worker the host answers at the same time; a worker that starts more waits for a slot."""

ExitCode = Callable[[int], "int | None"]
"""``exit_code(pid)``: how a worker that ended without answering ended, as its zygote reported it (None: unknown)."""


def converse(
    worker: WorkerLink, job: Call | WallsQuery, limits: Limits, rpc: Rpc, exit_code: ExitCode
) -> tuple[Done, bool] | None:
    """Send ``job``, answer RPCs until ``done``; returns the reply and whether the worker answered.

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
    answers = RpcAnswers(worker.sock, rpc, deadline)
    try:
        # with the deadline: a worker that stops reading blocks no send past it
        send_frame(worker.sock, job.encode(), deadline=deadline)
        while True:
            message = recv_frame(worker.sock, deadline=deadline, max_size=max_frame)
            if message is None:
                if not heard and worker.jail is not None and worker.jail.poll() is not None:
                    return None  # its jail went down before it said a word: no RPC, so no effect
                return Done(error=why_it_ended(exit_code(worker.pid), limits)), False
            heard = True
            kind = kind_of(message)
            if kind == DONE:
                if not answers.all_sent():
                    raise ProtocolError("done before the answers to the calls it started")
                done = Done.decode(message)
                if len(done.logs) > limits.output + LOG_NOTE_ROOM:
                    raise ProtocolError("logs over the call's output limit")
                if has_more(worker.sock):
                    raise ProtocolError("a frame after done")
                return done, True
            if kind != RPC:
                raise ProtocolError(f"unexpected message {repr(kind)[:40]}")
            request = RpcRequest.decode(message, after=last_id)
            last_id = request.id
            answers.answer(request)
    except TimeoutError:
        worker.kill()
        timeout = Timeout(f"the call ran past its wall time of {limits.wall_time:.3g} s")
        return Done(error=timeout), False
    except ProtocolError as exc:
        worker.kill()
        log.warning("toolpen worker %d broke the protocol: %s", worker.pid, exc)
        return Done(error=ProtocolBroken(f"the worker broke the protocol: {exc}")), False
    except OSError as exc:
        if not heard and isinstance(exc, BrokenPipeError | ConnectionResetError):
            return None  # closed with our message unread (a reset): it never started
        worker.kill()
        log.warning("toolpen worker %d broke off the call: %s", worker.pid, exc)
        return Done(error=WorkerCrashed("the worker broke off the call")), False
    finally:
        answers.finish()  # no call the worker started outlives its own call


def why_it_ended(code: int | None, limits: Limits) -> ToolpenError:
    """The error of a worker that ended without its ``done``, by its exit code (None: unknown)."""
    if code == -signal.SIGXCPU:
        return Timeout(f"the call used more than its CPU time of {limits.cpu_time:.3g} s")
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        return WorkerCrashed(f"the worker was killed by {name}")
    detail = "" if code is None else f" (exit code {code})"
    return WorkerCrashed(f"the worker ended without answering{detail}")


def has_more(sock: socket.socket) -> bool:
    """True when the worker has sent bytes the host has not read (its end of stream does not count)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    if not poller.poll(0):
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except OSError:
        return False


class RpcAnswers:
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

    def answer(self, request: RpcRequest) -> None:
        """Answer one rpc; raises ``TimeoutError`` past the call's deadline."""
        if not request.concurrent:
            self._answer(request)
            return
        self._threads = [thread for thread in self._threads if thread.is_alive()]
        while len(self._threads) >= MAX_CONCURRENT_RPCS:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("deadline passed waiting to answer a call")
            self._threads[0].join(remaining)
            self._threads = [thread for thread in self._threads if thread.is_alive()]
        self._started.add(request.id)
        run = contextvars.copy_context().run
        thread = threading.Thread(target=run, args=(self._answer, request), name="toolpen-rpc", daemon=True)
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

    def _answer(self, request: RpcRequest) -> None:
        """Run one RPC in the host and send its result or a structured error."""
        request_id, target, method = request.id, request.target, request.method
        try:
            result = self._rpc(target, method, request.params)
        except ToolpenError as exc:
            error = exc.to_dict()
        except Exception:
            log.exception("toolpen rpc %r.%r failed", target, method)
            error = {"kind": "internal", "message": "the host failed to answer this call"}
        else:
            try:
                self._send(RpcResult(request_id, result))
                return
            except (TypeError, ValueError):
                log.exception("toolpen rpc %r.%r answered with something that is not JSON", target, method)
                error = {"kind": "internal", "message": "the host's answer is not JSON"}
        self._send(RpcError(request_id, error))

    def _send(self, answer: RpcResult | RpcError) -> None:
        message = answer.encode()
        with self._lock:
            if answer.id not in self._started:
                send_frame(self._sock, message, deadline=self._deadline)
                return
            # OSError: a worker killed meanwhile, or the deadline passed (TimeoutError); its call has ended
            with contextlib.suppress(OSError):
                send_frame(self._sock, message, deadline=self._deadline)
            self._sent.add(answer.id)
