"""Attacks on what a single-use worker shares with its zygote: the builtins dict, the skipped preparation, the fork.

A single-use worker's calls take the zygote's ``namespace._SHARED_BUILTINS`` as ``__builtins__``
(no copy), a worker whose job is already waiting skips the no-op preparation (``worker.prepare``),
and the zygote forks on a binary request with raw descriptors. Each attack runs in real workers:
through the ``Runtime`` (``walls="all"``) or through a ``WorkerPool`` whose jobs mix
``walls="process"`` (plain CPython, to poison and to witness) with restricted ones.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from attacks import assert_refused_when_added_or_called, attack
from runtime import Runtime
from sandbox.common.limits import Limits
from sandbox.messages import Call, Done
from sandbox.process.pool import WorkerPool

REAL_NAMES = ("eval", "exec", "compile", "globals", "locals", "input", "help")
"""Real builtins that tool code must not resolve (``open`` is the scratch directory's: tests/attacks/test_scratch_files.py)."""

# (id, tool source defining ``tool()``): each reaches for the builtins dict a single-use call shares
REACH = [
    ("by-name", "def tool():\n    return __builtins__\n"),
    (
        "function-globals",
        "def tool():\n    def f():\n        pass\n    return getattr(f, '__glo' + 'bals__')\n",
    ),
    (
        "function-builtins",
        "def tool():\n    def f():\n        pass\n    return getattr(f, '__built' + 'ins__')\n",
    ),
    (
        "dataclass-init-globals",
        "import dataclasses\n@dataclasses.dataclass\nclass A:\n    x: int = 1\n"
        "def tool():\n    return getattr(A.__init__, '__glo' + 'bals__')\n",
    ),
    ("attrgetter", "import operator\ndef tool():\n    return operator.attrgetter('__globals__')(tool)\n"),
    ("format-walk", "def tool():\n    return '{0.__globals__[__builtins__]}'.format(tool)\n"),
    (
        "update-wrapper-copies-globals",
        "import functools\ndef tool():\n    def g():\n        pass\n"
        "    functools.update_wrapper(g, tool, assigned=('__globals__',), updated=())\n"
        "    return getattr(g, '__globals__')\n",
    ),
    (
        "annotation-class",
        "import typing\nclass A:\n    x: '__builtins__'\ndef tool():\n    return typing.get_type_hints(A)\n",
    ),
    ("forward-ref", "import typing\ndef tool():\n    return typing.ForwardRef('__buil' + 'tins__')\n"),
    (
        "type-adapter",
        "from pydantic import TypeAdapter\ndef tool():\n    return TypeAdapter('__buil' + 'tins__')\n",
    ),
    ("tool-module", "def tool():\n    import toolpen_tool\n    return toolpen_tool\n"),
    ("sys-modules", "import sys\ndef tool():\n    return sys.modules['toolpen_tool']\n"),
    ("vars-no-argument", "def tool():\n    return vars()\n"),
    ("dir-no-argument", "def tool():\n    return dir()\n"),
]


@pytest.mark.parametrize("source", [pytest.param(source, id=name) for name, source in REACH])
def test_tool_code_cannot_reach_its_builtins_dict(rt: Runtime, source: str) -> None:
    assert_refused_when_added_or_called(rt, source)


RESOLVED = f"""
def tool() -> dict:
    found = {{}}
    for name, probe in {{{", ".join(f"{name!r}: lambda: {name}" for name in REAL_NAMES)}}}.items():
        try:
            probe()
            found[name] = True
        except NameError:
            found[name] = False
    return {{"found": found, "len": len([1, 2]), "isinstance": isinstance(True, int), "type": type(1).__name__}}
"""
"""Which real builtins resolve in a call, and that the ordinary ones work."""
CLEAN = {"found": dict.fromkeys(REAL_NAMES, False), "len": 2, "isinstance": True, "type": "int"}

SHADOWING = """
import dataclasses
from pydantic import BaseModel


def tool():
    global hash, type, super, isinstance, len, repr, str, sorted, object
    hash, type, super = recorder("hash", hash), recorder("type", type), recorder("super", super)
    isinstance, len, repr = recorder("isinstance", isinstance), recorder("len", len), recorder("repr", repr)
    str, sorted, object = recorder("str", str), recorder("sorted", sorted), recorder("object", object)
    points = sorted({Point(2), Point(1)})
    return Shape(points=points, tags={"b", "a"})


seen = []
real_type = type


def recorder(name, real):
    def record(*args, **kwargs):
        seen.append(name + ":" + ",".join(real_type(arg).__name__ for arg in args))
        print(seen[-1])
        return real(*args, **kwargs)
    return record


@dataclasses.dataclass(frozen=True, order=True)
class Point:
    x: int


class Shape(BaseModel):
    points: list[Point]
    tags: set[str]

"""
"""Shadows, in its globals, the builtins that dataclass-generated methods (compiled by ``dataclasses``
in the tool's globals, so reading its builtins) and the result's encoding look up: what trusted
code finds there, during the call or while encoding its result, is the tool's own function, and
it only ever receives the tool's values (here ``hash`` of a frozen dataclass, ``sorted``)."""


def test_shadowed_builtins_only_ever_receive_the_tools_values(rt: Runtime) -> None:
    result = attack(rt, SHADOWING)
    assert result.success, result.error
    assert result.output["points"] == [{"x": 1}, {"x": 2}] and sorted(result.output["tags"]) == ["a", "b"]
    for line in result.logs.splitlines():
        _, _, kinds = line.partition(":")
        assert set(filter(None, kinds.split(","))) <= {"Point", "set", "tuple", "int", "str", "list"}, line
    assert attack(rt, RESOLVED).output == CLEAN  # the next call's worker: the zygote's builtins, unchanged


def test_calls_in_a_burst_see_the_same_restricted_builtins(rt: Runtime) -> None:
    """In a burst most workers are handed their job before they prepare (the preparation is skipped)."""
    tool = rt.add_tool(RESOLVED, replace=True)
    with ThreadPoolExecutor(8) as threads:
        results = list(threads.map(lambda _: rt.call(tool.name, {}), range(24)))
    assert [result.output for result in results] == [CLEAN] * len(results)


# -- through a WorkerPool: plain CPython jobs poison and witness the worker, restricted jobs probe it --

WITNESS = """
import resource, sys


def witness() -> dict:
    from sandbox.language import classes, modules, namespace
    from sandbox.process import worker
    shared = namespace._SHARED_BUILTINS
    limits = {
        name: list(resource.getrlimit(getattr(resource, name)))
        for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_NOFILE")
    }
    return {
        "prepared": worker.prepared_for is not None,
        "shared_is_safe": shared == dict(namespace.SAFE_BUILTINS) and shared["__import__"] is modules.import_view
        and shared["type"] is classes.GuardedType and "eval" not in shared and shared["open"] is not open,
        "preparation": worker.decode(worker.PREPARATION_FRAMES["all"]) == worker.PREPARATION,
        "limits": limits,
    }
"""
"""A plain CPython job that reports whether its worker prepared (``worker.prepared_for``), whether the shared builtins are
exactly the safe ones, and its rlimits."""

POISON = """
import builtins, gc


def poison() -> str:
    from sandbox.language import namespace
    from sandbox.process import worker
    namespace._SHARED_BUILTINS.update(eval=builtins.eval, open=builtins.open, __import__=builtins.__import__)
    for referent in gc.get_referents(namespace.SAFE_BUILTINS):
        if isinstance(referent, dict):
            referent.update(eval=builtins.eval, open=builtins.open)
    worker.PREPARATION_FRAMES["all"] = worker.encode(dict(worker.PREPARATION, source="def prepare(value):\\n    return eval\\n"))
    return "poisoned"
"""
"""A plain CPython job (``walls="process"``) writes the real builtins into every builtins dict of
its worker and swaps the preparation; its worker exits after it, and no later call may see any of it."""

LIMITS = Limits(wall_time=20.0)


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise AssertionError("no RPC expected")


def _run(pool: WorkerPool, source: str, entry: str, walls: str) -> Done:
    job = {"source": source, "entry": entry, "args": {}, "context": {"state": {}}, "walls": walls}
    return pool.run(Call.from_dict(job), LIMITS, _no_rpc)


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    with WorkerPool(size=2) as workers:
        yield workers


def _burst(pool: WorkerPool, jobs: list[tuple[str, str, str]]) -> list[Done]:
    with ThreadPoolExecutor(8) as threads:
        return list(threads.map(lambda job: _run(pool, *job), jobs))


def test_a_poisoned_worker_leaves_later_workers_the_safe_builtins(pool: WorkerPool) -> None:
    """Prepared or handed its job first, every later worker has the zygote's builtins, untouched."""
    witnessed: list[dict[str, Any]] = []
    for _ in range(5):
        poisoned = _burst(pool, [(POISON, "poison", "process")] * 4)
        assert [reply.output for reply in poisoned] == ["poisoned"] * 4
        replies = _burst(pool, [(WITNESS, "witness", "process"), (RESOLVED, "tool", "all")] * 6)
        for reply in replies:
            assert reply.success, reply.error
        witnessed += [reply.output for reply in replies[::2]]
        assert [reply.output for reply in replies[1::2]] == [CLEAN] * 6
        if any(not seen["prepared"] for seen in witnessed):
            break
    time.sleep(1.0)  # idle workers: prepared before their job
    witnessed.append(_run(pool, WITNESS, "witness", "process").output)
    assert {seen["prepared"] for seen in witnessed} == {True, False}  # both paths were taken
    for seen in witnessed:
        assert seen["shared_is_safe"] and seen["preparation"], seen
    assert _run(pool, RESOLVED, "tool", "all").output == CLEAN


def test_a_worker_that_skipped_the_preparation_has_the_calls_hard_limits(pool: WorkerPool) -> None:
    """The preparation sets soft limits only; a job that finds none still lowers the hard ones."""
    witnessed = [reply.output for reply in _burst(pool, [(WITNESS, "witness", "process")] * 12)]
    time.sleep(1.0)
    witnessed.append(_run(pool, WITNESS, "witness", "process").output)
    for seen in witnessed:
        limits = seen["limits"]
        address, cpu, files = limits["RLIMIT_AS"], limits["RLIMIT_CPU"], limits["RLIMIT_NOFILE"]
        assert address[0] == address[1] and files == [LIMITS.open_files] * 2, seen
        assert cpu[1] == cpu[0] + 1 and cpu[0] <= LIMITS.cpu_time + 2, seen


DESCRIPTORS = """
import os


def descriptors() -> dict:
    found = {}
    for fd in range(4096):
        try:
            os.fstat(fd)
        except OSError:
            continue
        try:
            found[fd] = os.readlink("/proc/self/fd/%d" % fd)
        except OSError as error:
            found[fd] = "unreadable: %s" % error
    listed = sorted(int(name) for name in os.listdir("/proc/self/fd"))
    return {"found": {str(fd): target for fd, target in found.items()}, "listed": listed}
"""


def test_a_worker_holds_no_descriptor_of_the_zygote(pool: WorkerPool) -> None:
    """After bursts (the zygote holding a pidfd per worker): 0-2 on /dev/null and the call's socket, nothing else."""
    replies = _burst(pool, [(DESCRIPTORS, "descriptors", "process")] * 16)
    for reply in replies:
        found = reply.output["found"]
        assert [found.pop(str(fd)) for fd in (0, 1, 2)] == ["/dev/null"] * 3, reply.output
        assert len(found) == 1 and next(iter(found.values())).startswith("socket:"), reply.output
        socket_fd = int(next(iter(found)))
        assert len(set(reply.output["listed"]) - {0, 1, 2, socket_fd}) == 1  # the listing's own


FORGE = """
import os, struct


def forge() -> str:
    request = struct.pack("=4s?i", b"fork", True, 1)  # wire.FORK_REQUEST, on the only socket it has
    for fd in range(64):
        try:
            if os.readlink("/proc/self/fd/%d" % fd).startswith("socket:"):
                for _ in range(8):
                    os.write(fd, request)
        except OSError:
            pass
    return "forged"
"""

ZYGOTE = """
import ctypes, os, signal


def zygote() -> dict:
    parent = int(open("/proc/self/stat").read().rsplit(")", 1)[1].split()[1])  # getppid is not allowed
    assert 0 < parent != os.getpid()
    libc = ctypes.CDLL(None, use_errno=True)
    reached = []
    try:
        os.kill(parent, signal.SIGKILL)
        reached.append("kill")
    except OSError:
        pass
    try:
        pidfd = os.pidfd_open(parent)
    except OSError:
        pidfd = None
    if pidfd is not None:
        try:
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            reached.append("pidfd_send_signal")
        except OSError:
            pass
        for fd in range(64):
            if libc.syscall(438, pidfd, fd, 0) >= 0:  # pidfd_getfd: a descriptor of the zygote's
                reached.append("pidfd_getfd %d" % fd)
    for fd in range(64):
        try:
            os.open("/proc/%d/fd/%d" % (parent, fd), os.O_RDONLY)
            reached.append("proc fd %d" % fd)
        except OSError:
            pass
    processes = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
    start = open("/proc/%d/stat" % parent).read().rsplit(")", 1)[1].split()[19]
    return {"reached": reached, "processes": len(processes), "zygote": [parent, start]}
"""


def test_a_worker_can_neither_ask_the_zygote_for_workers_nor_reach_it(pool: WorkerPool) -> None:
    """A fork request on the call's socket goes to the host, which ends the call (``protocol``);
    the zygote's control socket, descriptors and process stay out of reach."""
    time.sleep(1.0)
    first = _run(pool, ZYGOTE, "zygote", "process")
    assert first.success, first.error
    before = first.output
    assert before["reached"] == [], before
    forged = _run(pool, FORGE, "forge", "process")
    assert forged.error is not None and forged.error.kind == "protocol", forged
    time.sleep(1.0)
    after = _run(pool, ZYGOTE, "zygote", "process").output
    assert after["reached"] == [] and after["zygote"] == before["zygote"], after
    assert after["processes"] <= before["processes"] + 2, (before, after)  # not the 8 the forger asked for
    assert pool.alive
