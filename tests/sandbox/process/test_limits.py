"""Resource limits through real workers: each ends the call cleanly, and the pool keeps serving."""

from __future__ import annotations

import time

import pytest

from sandbox.common.limits import Limits, MiB
from sandbox.messages import Done
from sandbox.process.pool import WorkerPool
from tests.sandbox.process.test_pool import run

LIMITS = Limits(wall_time=1.5, cpu_time=5.0, memory=256 * MiB, output=1000, result_size=10_000, recursion=100)


@pytest.fixture(scope="module")
def pool():
    with WorkerPool(size=2) as pool:
        yield pool


def check(pool: WorkerPool, source: str, kind: str | tuple[str, ...], limits: Limits = LIMITS) -> Done:
    """Run a hostile tool: a clean error of ``kind`` within the deadline, then a normal call works."""
    start = time.monotonic()
    done = run(pool, source, limits=limits)
    elapsed = time.monotonic() - start
    assert done.success is False, done
    assert done.error.kind in ((kind,) if isinstance(kind, str) else kind), done
    assert elapsed < limits.wall_time + 3.0  # the deadline, plus a fork and scheduling on a busy machine
    assert run(pool, "def ok() -> int:\n    return 1\n").output == 1  # still serving
    return done


def test_an_infinite_loop_that_catches_everything_times_out(pool):
    done = check(
        pool,
        """
        def spin():
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    pass
        """,
        "timeout",
    )
    assert "wall time of 1.5 s" in done.error.message


def test_cpu_time_limit_ends_the_call(pool):
    limits = Limits(wall_time=30.0, cpu_time=1.0)  # a busy machine gives the worker a fraction of a core
    done = check(pool, "def spin():\n    while True:\n        pass\n", "timeout", limits)
    assert "CPU time" in done.error.message


def test_a_huge_list_is_a_memory_error(pool):
    done = check(pool, "def bomb():\n    x = [0] * (10**10)\n    return len(x)\n", "memory")
    assert done.error.line == 2


def test_a_growing_string_is_a_memory_error(pool):
    check(
        pool,
        """
        def bomb():
            s = "x" * 1024
            while True:
                s = s + s
        """,
        "memory",
        LIMITS.merged({"wall_time": 10.0}),  # copying 128 MiB strings on a loaded machine takes time
    )


def test_deep_recursion_is_a_recursion_error(pool):
    done = check(pool, "def down(n: int = 0):\n    return down(n + 1)\n", "recursion")
    assert done.error.line == 2
    assert "deeper than 100 calls" in done.error.message and "Limits(recursion=N)" in done.error.message


def test_a_huge_power_ends_cleanly(pool):
    check(pool, "def power():\n    return 10**10**8\n", ("timeout", "memory"))


def test_catastrophic_regex_times_out(pool):
    check(
        pool,
        """
        import re

        def redos():
            return bool(re.match("(a+)+$", "a" * 40 + "b"))
        """,
        "timeout",
    )


def test_an_output_flood_is_truncated_with_a_note(pool):
    done = run(
        pool,
        """
        def flood():
            for i in range(100000):
                print("line", i)
            return "done"
        """,
        limits=LIMITS,
    )
    assert done.success is True
    assert done.output == "done"
    assert done.logs.startswith("line 0\n")
    assert len(done.logs) < LIMITS.output + 200
    assert "truncated" in done.logs


def test_a_huge_result_is_output_too_large(pool):
    done = check(pool, "def big():\n    return 'x' * 20000\n", "output_too_large")
    assert "20002 bytes" in done.error.message


def test_a_steps_limits_stay_within_its_calls_remaining_time():
    limits = Limits(wall_time=10.0, cpu_time=3.0, memory=64 * MiB)
    assert limits.within(20.0) is limits
    assert limits.within(5.0) == Limits(wall_time=5.0, cpu_time=3.0, memory=64 * MiB)
    clipped = limits.within(2.0)
    assert clipped == Limits(wall_time=2.0, cpu_time=2.0, memory=64 * MiB)
    assert clipped.to_dict() == {**limits.to_dict(), "wall_time": 2.0, "cpu_time": 2.0}
    with pytest.raises(AttributeError):
        clipped.wall_time = 30.0  # still frozen
    assert limits.merged({"output": 10}).output == 10
    with pytest.raises(ValueError, match="unknown limit"):
        limits.merged({"walltime": 1.0})
