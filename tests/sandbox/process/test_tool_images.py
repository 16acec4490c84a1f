"""Tool images (issue 33): a tool's module-level code runs once, in a process of its own forked from
the zygote, and every call of the tool runs in a fresh fork of that image."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from runtime import Limits, Runtime
from sandbox.common.errors import Timeout
from sandbox.messages import Call
from sandbox.process.imageable import imageable
from sandbox.process.pool import WorkerPool
from tests.jail_processes import jail_pids

COUNTER = '''
from pydantic import BaseModel

SEEN = []
COUNT = 0
print("module ran")


class Profile(BaseModel):
    points: int = 0


def tick(x: int) -> dict:
    """Appends to module state."""
    global COUNT
    SEEN.append(x)
    COUNT += 1
    context.state["points"] = Profile(points=x).points
    return {"seen": list(SEEN), "count": COUNT}
'''
FAILING = 'RATES = {"standard": 1.0}\nDEFAULT = RATES["overnight"]\n\n\ndef rate() -> float:\n    """Rate."""\n    return DEFAULT\n'


def wait_for_images(rt: Runtime, count: int) -> None:
    deadline = time.monotonic() + 20
    while len(rt.pool.tool_images_built) < count:
        assert time.monotonic() < deadline, "the tool images were not built"
        time.sleep(0.02)


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://") as runtime:
        yield runtime


def test_every_call_starts_from_the_same_pristine_module(rt: Runtime) -> None:
    rt.add_tool(COUNTER)
    first = rt.call(
        "tick", {"x": 0}, session_id="s", call_id="c0"
    )  # before the image: its module runs in the call
    wait_for_images(rt, 1)
    results = [rt.call("tick", {"x": x}, session_id="s", call_id=f"c{x}") for x in range(1, 5)]
    for x, result in enumerate([first, *results]):
        assert result.success, result.error
        assert result.output == {"seen": [x], "count": 1}  # the list appended to and the counter are fresh
        assert result.logs == "module ran\n"  # what the module printed, in every call's log as before
        assert result.state == {"points": x}
    assert COUNTER in rt.pool.tool_images_built


def test_a_module_that_fails_reports_its_line_at_every_call(rt: Runtime) -> None:
    rt.add_tool(FAILING)
    for _ in range(3):
        result = rt.call("rate", {})
        assert result.error is not None
        assert result.error.kind == "tool_error"
        assert result.error.line == 2
        assert "KeyError: 'overnight'" in result.error.message
        time.sleep(0.1)
    assert FAILING not in rt.pool.tool_images_built


def test_a_module_that_runs_too_long_times_out_in_the_call() -> None:
    source = "while True:\n    pass\n\n\ndef spin() -> int:\n    return 1\n"
    with Runtime(store="memory://", limits=Limits(cpu_time=1, wall_time=1.5)) as runtime:
        runtime.add_tool(source)
        for _ in range(2):
            result = runtime.call("spin", {})
            assert result.error is not None and result.error.kind == "timeout"
        assert source not in runtime.pool.tool_images_built


def test_images_are_capped_least_recently_used_first() -> None:
    sources = [f"VALUE = {n}\n\n\ndef tool_{n}() -> int:\n    return VALUE\n" for n in range(3)]
    with Runtime(store="memory://") as runtime:
        runtime.pool.tool_images = 2
        for n, source in enumerate(sources[:2]):
            runtime.add_tool(source)
            assert runtime.call(f"tool_{n}", {}).output == n
        wait_for_images(runtime, 2)
        assert runtime.call("tool_0", {}).output == 0  # tool_1 is now the least recently used
        runtime.add_tool(sources[2])
        assert runtime.call("tool_2", {}).output == 2
        wait_for_images(runtime, 2)
        assert runtime.pool.tool_images_built == [sources[0], sources[2]]
        assert runtime.call("tool_1", {}).output == 1  # its image was dropped: it runs, and gets one again


@pytest.mark.parametrize(
    ("source", "walls", "hook", "expected"),
    [
        (COUNTER, "all", None, True),
        (COUNTER, "process", None, False),  # plain CPython: see docs/security.md, "Tool images"
        (COUNTER, "all", {"parameters": [], "values": {}}, False),
        ("STATE = context.state\n\ndef f() -> int:\n    return 1\n", "all", None, False),
        ("def f(state=get_variable('k')) -> int:\n    return 1\n", "all", None, False),
        (
            "with open('x', 'w') as f:\n    f.write('1')\n\ndef g() -> int:\n    return 1\n",
            "all",
            None,
            False,
        ),
        ("def f() -> int:\n    return context.state.get('k', 1)\n", "all", None, True),
    ],
)
def test_which_tools_get_an_image(source: str, walls: str, hook: dict | None, expected: bool) -> None:
    assert imageable(Call(source, "f", walls=walls, hook=hook)) is expected


def test_an_images_workers_are_replaced_and_do_not_grow() -> None:
    source = "def f(n: int) -> int:\n    return n\n"
    with WorkerPool(size=2) as pool:
        job = Call(source, "f", {"n": 1}, {"state": {}})
        assert pool.run(job, Limits(), _no_rpc).output == 1
        deadline = time.monotonic() + 20
        while not pool.tool_images_built:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.3)
        before = jail_pids(pool.zygote_pid)
        for n in range(20):
            assert pool.run(replace(job, args={"n": n}), Limits(), _no_rpc).output == n
        late = pool.run(replace(job, args={"n": 0}), Limits(wall_time=0.3), _no_rpc)  # no time to run
        assert late.output == 0 or isinstance(late.error, Timeout)
        time.sleep(1.0)
        after = jail_pids(pool.zygote_pid)
        assert len(after) == len(before)  # the zygote's two workers, the image and its one ready worker


def _no_rpc(target: str, method: str, params: dict) -> None:
    raise AssertionError("no rpc")
