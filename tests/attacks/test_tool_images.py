"""Tool images (issue 33) keep tools and runtimes apart, and are walled as workers are.

A tool image runs one tool's module-level code and forks that tool's workers (``sandbox/process/
tool_image.py``). The attacks: a tool's module changes process-wide state (a logger's level, the
module registered as the tool's) to be seen by another tool's calls; the same source registered
in two runtimes (two tenants of ``toolpen serve``) looks for the other's image through module state
fixed when its image was built; and the image process itself is read from the host for the walls
a worker has: seccomp, no-new-privs, no core dumps, no file writes.
"""

from __future__ import annotations

import time
from pathlib import Path

from runtime import Limits, Runtime

TOOL_B = '''
import logging

logging.getLogger("shared").setLevel(logging.DEBUG)
SECRET = "tool b's module"


def tool_b() -> list:
    """Reads what its module set."""
    return [logging.getLogger("shared").level, SECRET]
'''
TOOL_A = '''
import logging

LEVEL_AT_IMPORT = logging.getLogger("shared").level


def tool_a() -> list:
    """Reads whether another tool's module reached its process."""
    try:
        secret = SECRET  # noqa: F821 (tool b's module's)
    except NameError:
        secret = None
    return [LEVEL_AT_IMPORT, logging.getLogger("shared").level, secret]
'''
TOKEN = '''
import random

TOKEN = random.random()


def token() -> float:
    """The value fixed when this module ran."""
    return TOKEN
'''


def _built(rt: Runtime, count: int) -> None:
    deadline = time.monotonic() + 20
    while len(rt.pool.tool_images_built) < count:
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_a_tools_module_reaches_nothing_of_another_tools() -> None:
    with Runtime(store="memory://") as rt:
        rt.add_tool(TOOL_B)
        rt.add_tool(TOOL_A)
        for name in ("tool_b", "tool_a"):  # starts both images
            assert rt.call(name, {}).success
        _built(rt, 2)
        for _ in range(3):
            assert rt.call("tool_b", {}).output == [10, "tool b's module"]
            assert rt.call("tool_a", {}).output == [0, 0, None]


def test_an_image_is_never_shared_with_another_runtime() -> None:
    tokens = []
    for _ in range(2):
        with Runtime(store="memory://") as rt:
            rt.add_tool(TOKEN)
            rt.call("token", {})
            _built(rt, 1)
            seen = {rt.call("token", {}).output for _ in range(3)}
            assert len(seen) == 1  # every call of the tool forks the same image
            tokens.append(seen.pop())
    assert tokens[0] != tokens[1]  # each runtime ran the module in an image of its own


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _image_pids(rt: Runtime) -> list[int]:
    """The tool images of ``rt``'s pool: the children of its zygote that have children (their workers)."""
    pid = rt.pool.zygote_pid  # the reaper, then bubblewrap, then the zygote
    while b"sandbox.process.zygote" not in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[1:3]:
        pid = _children(pid)[0]
    return [child for child in _children(pid) if _children(child)]


def test_the_image_is_walled_as_a_worker_is() -> None:
    with Runtime(store="memory://") as rt:
        rt.add_tool(TOKEN)
        rt.call("token", {})
        _built(rt, 1)
        time.sleep(0.2)  # its first worker forked
        images = _image_pids(rt)
        assert len(images) == 1
        status = Path(f"/proc/{images[0]}/status").read_text()
        assert "\nSeccomp:\t2\n" in status
        assert "\nNoNewPrivs:\t1\n" in status
        limits = Path(f"/proc/{images[0]}/limits").read_text()
        assert any(
            line.startswith("Max core file size") and line.split()[4] == "0" for line in limits.splitlines()
        )
        assert any(
            line.startswith("Max file size") and line.split()[3] == "0" for line in limits.splitlines()
        )


def test_an_image_module_is_held_to_the_calls_memory_limit() -> None:
    """A module that allocates past the call's memory limit at import gets no image (its calls run
    it each, and fail as memory), rather than running unbounded in the image process."""
    source = "BIG = bytearray(256 * 1024 * 1024)\n\n\ndef big() -> int:\n    return len(BIG)\n"
    with Runtime(store="memory://", limits=Limits(memory=64 * 1024 * 1024)) as rt:
        rt.add_tool(source)
        deadline = time.monotonic() + 20
        while not rt.pool.tool_images_settled:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert source not in rt.pool.tool_images_built
        result = rt.call("big", {})
        assert result.error is not None and result.error.kind == "memory"
