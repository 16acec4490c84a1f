"""The host trusts no frame beyond the worker's own call.

Tool code under walls="process" finds its worker's socket (the one descriptor that is a socket)
and writes raw bytes to it: malformed JSON, a frame over the cap, out-of-turn operations, an
rpc id used twice, a ``done`` of the wrong shape, a frame after ``done``, a frame cut short.
Each ends that call with a ``protocol`` error and kills that worker, while a call running
beside it finishes normally and the pool keeps serving.
"""

from __future__ import annotations

import json
import struct
import threading
import time
from typing import Any

import pytest

from sandbox.common.limits import Limits
from sandbox.messages import Call
from sandbox.process.pool import WorkerPool
from tests.jail_processes import gone

LIMITS = Limits(wall_time=20.0, cpu_time=20.0)

RAW_WRITER = '''
import os
import stat
import struct
import time


def channel():
    for fd in range(3, 256):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            pass
    raise RuntimeError("no socket")


def read_frame(fd):
    size = struct.unpack(">I", os.read(fd, 4))[0]
    data = b""
    while len(data) < size:
        data += os.read(fd, size - len(data))
    return data


def attack(payload: str, then: str) -> None:
    """Says who it is through a first, well-formed rpc, then writes raw bytes to its socket."""
    fd = channel()
    hello = ('{"op":"rpc","id":1,"target":"test","method":"hello","params":{"pid":%d}}' % os.getpid()).encode()
    os.write(fd, struct.pack(">I", len(hello)) + hello)
    read_frame(fd)
    os.write(fd, bytes.fromhex(payload))
    if then == "exit":
        os._exit(1)
    time.sleep(60)
'''


def frame(message: Any) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


def rpc(request_id: Any, **fields: Any) -> dict[str, Any]:
    return {"op": "rpc", "id": request_id, "target": "test", "method": "echo", "params": {}, **fields}


DONE = {"op": "done", "success": True, "output": 1, "state_delta": {"set": {}, "deleted": []}, "logs": ""}

ATTACKS: dict[str, tuple[bytes, str]] = {
    "bad JSON": (frame(b'{"op": "rpc", '), "sleep"),
    "not an object": (frame(b"[1, 2, 3]"), "sleep"),
    "invalid UTF-8": (frame(b'{"op": "\xff\xfe"}'), "sleep"),
    "NaN": (frame(b'{"op": "done", "success": true, "output": NaN}'), "sleep"),
    "a number past float": (frame(b'{"op": "done", "success": true, "output": 1e999}'), "sleep"),
    "a lone surrogate": (frame(b'{"op": "done", "success": true, "output": "\\ud800"}'), "sleep"),
    "a lone surrogate as raw bytes": (
        frame(b'{"op": "done", "success": true, "output": "\xed\xa0\x80"}'),
        "sleep",
    ),
    "UTF-16 instead of UTF-8": (
        frame('{"op": "done", "success": true, "output": 1}'.encode("utf-16")),
        "sleep",
    ),
    "JSON nested past the recursion limit": (frame(b"[" * 100_000 + b"]" * 100_000), "sleep"),
    "unknown op": (frame({"op": "hello"}), "sleep"),
    "a host's op (rpc_result)": (frame({"op": "rpc_result", "id": 1, "result": 1}), "sleep"),
    "a call op": (frame({"op": "call", "source": "", "entry": "x"}), "sleep"),
    "rpc id reuse": (frame(rpc(1)), "sleep"),
    "rpc id going back": (frame(rpc(5)) + frame(rpc(4)), "sleep"),
    "rpc id not an integer": (frame(rpc("2")), "sleep"),
    "rpc id a boolean": (frame(rpc(True)), "sleep"),
    "rpc params not an object": (frame(rpc(2, params=[1])), "sleep"),
    "rpc target not a string": (frame(rpc(2, target=["tools"])), "sleep"),
    "done with success not a boolean": (frame({**DONE, "success": "yes"}), "sleep"),
    "done without output": (frame({"op": "done", "success": True}), "sleep"),
    "done with a malformed error": (frame({"op": "done", "success": False, "error": "boom"}), "sleep"),
    "done with an error line not a number": (
        frame({"op": "done", "success": False, "error": {"kind": "x", "message": "m", "line": "7"}}),
        "sleep",
    ),
    "done with logs not a string": (frame({**DONE, "logs": ["a"]}), "sleep"),
    "done with logs over the output limit": (frame({**DONE, "logs": "x" * (LIMITS.output + 101)}), "sleep"),
    "done with a malformed state delta": (frame({**DONE, "state_delta": {"set": [1]}}), "sleep"),
    "a frame after done": (frame(DONE) + frame(rpc(2)), "sleep"),
    "a frame over the cap": (struct.pack(">I", 0x7FFFFFFF) + b"{}", "sleep"),
    "a frame cut short": (struct.pack(">I", 100) + b'{"op":', "exit"),
}


class Host:
    """The test's side of the RPCs: notes each worker's pid, answers anything else with an echo."""

    def __init__(self) -> None:
        self.pids: list[int] = []

    def __call__(self, target: str, method: str, params: dict[str, Any]) -> Any:
        if method == "hello":
            self.pids.append(int(params["pid"]))
        return params


@pytest.fixture(scope="module")
def pool() -> Any:
    with WorkerPool(size=2) as workers:
        workers.warm(RAW_WRITER, "process")
        yield workers


def _job(source: str, entry: str, args: dict[str, Any]) -> Call:
    return Call(source, entry, args=args, context={"state": {}}, walls="process")


SLOW_SUM = "import time\n\n\ndef slow_sum(n: int) -> int:\n    time.sleep(0.5)\n    return sum(range(n))\n"


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_bad_frame_ends_only_its_own_call(pool: WorkerPool, attack: str) -> None:
    payload, then = ATTACKS[attack]
    beside: dict[str, Any] = {}
    neighbour = threading.Thread(
        target=lambda: beside.update(reply=pool.run(_job(SLOW_SUM, "slow_sum", {"n": 10}), LIMITS, Host()))
    )
    neighbour.start()
    host = Host()
    started = time.monotonic()
    reply = pool.run(_job(RAW_WRITER, "attack", {"payload": payload.hex(), "then": then}), LIMITS, host)
    elapsed = time.monotonic() - started
    neighbour.join()
    assert reply.error is not None and reply.error.kind == "protocol", reply
    assert elapsed < LIMITS.wall_time / 2  # ended at the frame, not by the deadline
    assert len(host.pids) == 1 and gone(pool, host.pids[0]), "the worker was not killed"
    assert beside["reply"].output == 45  # the call beside it was not disturbed
    assert pool.run(_job(SLOW_SUM, "slow_sum", {"n": 4}), LIMITS, Host()).output == 6


def test_a_well_formed_conversation_is_not_refused(pool: WorkerPool) -> None:
    """The control case: the same tool whose raw frames are well formed gets its answers."""
    source = RAW_WRITER.replace("    if then ==", "    return read_frame(fd).decode()\n    if then ==")
    host = Host()
    reply = pool.run(_job(source, "attack", {"payload": frame(rpc(2)).hex(), "then": "sleep"}), LIMITS, host)
    assert reply.error is None, reply.error
    assert json.loads(reply.output) == {"op": "rpc_result", "id": 2, "result": {}}


def test_a_worker_that_answers_and_sleeps_on_is_killed(pool: WorkerPool) -> None:
    """Under walls="process" a tool can send its worker's done itself and carry on: the pool kills
    that worker rather than let it exit by itself, as a single-use worker under the language wall does."""
    host = Host()
    reply = pool.run(
        _job(RAW_WRITER, "attack", {"payload": frame(DONE).hex(), "then": "sleep"}),
        LIMITS,
        host,
    )
    assert reply.error is None and reply.output == 1, reply
    assert len(host.pids) == 1 and gone(pool, host.pids[0]), "the worker was not killed"


AHEAD_WRITER = (
    RAW_WRITER
    + '''

def ahead(count: int) -> int:
    """Queues ``count`` rpc frames at once, then reads each answer as it comes: the host finds its
    next frame waiting every time it reads, and its answers read at once every time it sends."""
    fd = channel()
    frames = []
    for request_id in range(1, count + 1):
        body = ('{"op":"rpc","id":%d,"target":"test","method":"slow","params":{}}' % request_id).encode()
        frames.append(struct.pack(">I", len(body)) + body)
    os.write(fd, b"".join(frames))
    for _ in range(count):
        read_frame(fd)
    return count
'''
)


class SlowHost(Host):
    """Answers each rpc after a pause: the host's own work per frame, as a real service's would take."""

    def __call__(self, target: str, method: str, params: dict[str, Any]) -> Any:
        time.sleep(0.05)
        return super().__call__(target, method, params)


def test_frames_always_waiting_do_not_hold_a_call_past_its_deadline(pool: WorkerPool) -> None:
    """The host's reads and sends never wait on a worker that keeps its next frame queued and reads
    every answer at once; the deadline still ends the call (checked before each read and send,
    not only before a wait): here 100 answers of 50 ms would take 5 s of a 1 s wall time."""
    limits = Limits(wall_time=1.0, cpu_time=1.0)
    started = time.monotonic()
    reply = pool.run(_job(AHEAD_WRITER, "ahead", {"count": 100}), limits, SlowHost())
    elapsed = time.monotonic() - started
    assert reply.error is not None and reply.error.kind == "timeout", reply
    assert elapsed < limits.wall_time + 1.0
