"""The pool through real zygote and worker processes: results, errors, isolation, recovery."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import pytest

from runtime._state import StateDelta
from sandbox.common.errors import NotFound, Timeout
from sandbox.common.limits import Limits
from sandbox.messages import Call, Done
from sandbox.process.pool import WorkerPool
from sandbox.wire import ProtocolError
from tests.jail_processes import jail_pids

LIMITS = Limits(wall_time=2.0, cpu_time=2.0)


def no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise NotFound(f"no {target}.{method} in this test")


def run(pool: WorkerPool, source: str, args: dict | None = None, *, context: dict | None = None,
        limits: Limits = LIMITS, rpc=no_rpc) -> Done:  # fmt: skip
    source = textwrap.dedent(source)
    entry = re.search(r"^def (\w+)", source, re.M).group(1)
    job = {"source": source, "entry": entry, "args": args or {}, "context": context or {"state": {}}}
    return pool.run(Call.from_dict(job), limits, rpc)


@pytest.fixture(scope="module")
def pool():
    os.environ["TOOLPEN_TEST_SECRET"] = "hunter2"
    with WorkerPool(size=2) as pool:
        yield pool
    del os.environ["TOOLPEN_TEST_SECRET"]


def test_a_call_returns_output_logs_and_state_delta(pool):
    done = run(
        pool,
        """
        def add_points(points: int) -> dict:
            profile = context.state.get("profile", {"points": 0})
            profile["points"] += points
            context.state["profile"] = profile
            print("now", profile["points"])
            return profile
        """,
        {"points": 5},
        context={"state": {"profile": {"points": 10}, "other": 1}},
    )
    assert done == Done(
        output={"points": 15},
        state_delta=StateDelta({"profile": {"points": 15}}, []),
        logs="now 15\n",
    )


def test_results_are_made_json(pool):
    done = run(
        pool,
        """
        from pydantic import BaseModel

        class Item(BaseModel):
            name: str

        def items() -> dict:
            return {"model": Item(name="a"), "tuple": (1, 2), "set": {3, 1, 2}}
        """,
    )
    assert done.output == {"model": {"name": "a"}, "tuple": [1, 2], "set": [1, 2, 3]}


def test_a_result_that_is_not_json_is_a_tool_error(pool):
    done = run(pool, "def f():\n    return {'x': float('nan')}\n")
    assert done.error.kind == "tool_error"
    assert "not JSON" in done.error.message


def test_a_tool_exception_names_the_tool_line_and_no_host_path(pool):
    done = run(
        pool,
        """
        def divide(a: int, b: int) -> float:
            x = a + 1
            return a / b
        """,
        {"a": 1, "b": 0},
    )
    assert done.success is False
    assert done.error.kind == "tool_error"
    assert done.error.line == 4
    assert "ZeroDivisionError" in done.error.message
    assert "/" not in done.error.message.replace("a / b", "")


def test_syntax_errors_and_missing_entry_are_invalid_source(pool):
    assert run(pool, "def f(:\n    pass\n".replace("def f(", "def f(x")).error.kind == "invalid_source"
    job = {"source": "def f():\n    return 1\n", "entry": "g", "args": {}, "context": {}}
    assert pool.run(Call.from_dict(job), LIMITS, no_rpc).error.kind == "invalid_source"


def test_workers_see_none_of_the_parent_environment(pool):
    assert run(pool, "def f():\n    return 1\n").success
    zygote = pool.zygote_pid
    checked = 0
    deadline = time.monotonic() + 10
    while not checked and time.monotonic() < deadline:  # the refill may still be forking on a busy machine
        with open(f"/proc/{zygote}/task/{zygote}/children") as children:
            workers = children.read().split()
        for pid in workers:
            try:
                with open(f"/proc/{pid}/environ", "rb") as environ:
                    assert b"TOOLPEN_TEST_SECRET" not in environ.read()
            except (ProcessLookupError, FileNotFoundError):
                continue  # the worker of the call above, exiting
            checked += 1
        time.sleep(0.05)
    assert checked


SEED = "import random\n\ndef f():\n    random.seed(42)\n    return random.random()\n"
NEXT = "import random\n\ndef g():\n    return random.random()\n"


def second_random_after_seed_42() -> float:
    import random

    generator = random.Random(42)
    generator.random()
    return generator.random()


def test_single_use_workers_share_no_module_state(pool):
    assert run(pool, SEED).success
    assert run(pool, NEXT).output != second_random_after_seed_42()


def test_reuse_mode_keeps_the_worker_and_its_state():
    with WorkerPool(size=1, reuse=True) as reused:
        wait_until_ready(reused)  # else a slow first fork (a busy machine) makes run() fork a second worker
        assert run(reused, SEED).success
        assert run(reused, NEXT).output == second_random_after_seed_42()


def test_rpc_errors_reach_the_tool_as_catchable_errors(pool):
    done = run(
        pool,
        """
        def f():
            try:
                tools.missing({})
            except Exception as exc:
                return exc.kind + ": " + exc.message
        """,
    )
    assert done.output == "not_found: no tools.call in this test"


def test_a_crashing_host_rpc_is_reported_without_details(pool):
    def broken(target, method, params):
        raise RuntimeError("secret host detail /etc/passwd")

    done = run(pool, "def f():\n    return tools.x({})\n", rpc=broken)
    assert done.error.kind == "tool_error"
    assert "secret" not in done.error.message


def test_threads_share_the_pool(pool):
    results: list[Any] = []

    def one(n: int) -> None:
        results.append(run(pool, "def f(n: int) -> int:\n    return n * 2\n", {"n": n}).output)

    threads = [threading.Thread(target=one, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [n * 2 for n in range(16)]


def test_the_pool_restarts_a_dead_zygote(pool):
    pool.kill_zygote_for_test(wait=True)
    for _ in range(6):  # the ready workers die with the jail; a new zygote (and jail) serves
        assert run(pool, "def f():\n    return 7\n").output == 7


MALFORMED_REPLIES = [
    {"op": "done"},
    {"op": "done", "success": "yes", "output": 1},
    {"op": "done", "success": True},
    {"op": "done", "success": True, "output": 1, "state_delta": {"set": ["x"]}},
    {"op": "done", "success": True, "output": 1, "state_delta": {"set": {}, "extra": 1}},
    {"op": "done", "success": True, "output": 1, "logs": 7},
    {"op": "done", "success": False},
    {"op": "done", "success": False, "error": "boom"},
    {"op": "done", "success": False, "error": {"kind": "tool_error"}},
    {"op": "done", "success": False, "error": {"kind": "tool_error", "message": "m", "line": "4"}},
    # a callback may report edits of its input or model request/response, and of nothing else
    {"op": "done", "success": True, "output": 1, "hook_values": {"tool": {"name": "x"}}},
    {"op": "done", "success": True, "output": 1, "hook_values": ["input"]},
]


@pytest.mark.parametrize("done", MALFORMED_REPLIES)
def test_a_malformed_reply_is_a_protocol_error_not_a_key_error(done):
    # the pool turns a ProtocolError into a `protocol` error and kills the worker (attacks/process/test_frames.py)
    with pytest.raises(ProtocolError):
        Done.decode(done)


def test_a_reply_is_decoded_once_into_typed_values():
    ok = Done.decode({"op": "done", "success": True, "output": None, "state_delta": {"deleted": ["a"]}})
    assert ok.success and ok.output is None and ok.state_delta == StateDelta({}, ["a"]) and ok.logs == ""
    failed = Done.decode(
        {
            "op": "done",
            "success": False,
            "error": {"kind": "timeout", "message": "late", "line": 3},
            "logs": "x",
        }
    )
    assert not failed.success and isinstance(failed.error, Timeout) and failed.error.line == 3
    assert failed.logs == "x" and failed.state_delta == StateDelta()


def test_walls_are_reported(pool):
    walls = pool.probe_walls()
    assert {"descriptors", "environment", "working directory", "rlimits"} <= set(walls["active"])


def test_probing_the_walls_replaces_the_worker_it_used():
    with WorkerPool(size=1) as pool:
        wait_until_ready(pool)
        pool.probe_walls()
        wait_until_ready(pool)
        assert pool.ready_count == 1


def test_single_use_workers_are_replaced_and_the_pool_does_not_grow():
    """A single-use worker exits after its call and its zygote replaces it unasked; a killed one
    (a timeout) is replaced once, whether it had ended before the pool asked or not. (Without
    tool images: the image's lane, tests/sandbox/process/test_tool_images.py.)"""
    with WorkerPool(size=2, tool_images=0) as pool:
        settle(pool)
        before = jail_pids(pool.zygote_pid)
        for n in range(20):
            assert run(pool, "def f(n: int) -> int:\n    return n\n", {"n": n}).output == n
        late = run(pool, "def f():\n    while True:\n        pass\n", limits=Limits(wall_time=0.3))
        assert isinstance(late.error, Timeout)
        settle(pool)
        after = jail_pids(pool.zygote_pid)
        assert len(after) == len(before) and len(after - before) == 2  # two new workers, as many as before


def test_a_caller_waiting_on_a_count_gone_wrong_asks_for_a_worker_itself():
    """Should the pool's count of forks on their way ever say one is coming when none is, a caller
    waits HEAL_ROUNDS * TAKE_WAIT seconds (5) and then asks for one, instead of waiting forever."""
    with WorkerPool(size=1) as pool:
        settle(pool)
        held = pool.take_ready_for_test()  # the only worker, held as a caller would hold it
        pool.set_pending_forks_for_test(1)  # a fork counted that nothing will deliver
        started = time.monotonic()
        assert run(pool, "def f():\n    return 3\n").output == 3
        assert 4 < time.monotonic() - started < 15
        held.close()


def settle(pool: WorkerPool) -> None:
    """Wait (up to 10 s) until the pool's workers are all ready and no fork is on its way."""
    deadline = time.monotonic() + 10
    while (pool.ready_count < pool.size or pool.pending_forks) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # a worker that would be one too many is forked by now


def wait_until_ready(pool: WorkerPool) -> None:
    """Wait (up to 10 s) for the pool's worker to be forked and ready."""
    deadline = time.monotonic() + 10
    while pool.ready_count < 1 and time.monotonic() < deadline:
        time.sleep(0.05)


def test_doctor_reports_the_walls_of_a_real_worker():
    report = subprocess.run(
        [sys.executable, "-c", "from runtime._cli import main; main()", "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    walls = json.loads(report.stdout)
    assert walls["missing"] == {}
    assert walls["active"]["jail"].startswith("bubblewrap")
    for wall in ("user", "mount", "PID", "IPC", "UTS", "network", "cgroup"):
        assert f"{wall} namespace" in walls["active"]
    assert walls["active"]["seccomp"].startswith("allowlist of")
    assert {"read-only root", "unprivileged user", "rlimits", "no-new-privs"} <= set(walls["active"])
    assert walls["active"]["wall-clock deadline"]


WALLS_SEEN = """
import os, resource, signal

def walls() -> dict:
    status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
    try:
        cwd = os.getcwd()
    except FileNotFoundError:
        cwd = "removed"
    return {
        "no_new_privs": status["NoNewPrivs"].strip(),
        "seccomp": status["Seccomp"].strip(),
        "uid": os.getuid(),
        "environment": sorted(set(os.environ) - {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}),
        "cwd": cwd,
        "own_session": open("/proc/self/stat").read().rsplit(")", 1)[1].split()[3] == str(os.getpid()),
        "descriptors": len(os.listdir("/proc/self/fd")),
        "rlimits": [resource.getrlimit(which) for which in (resource.RLIMIT_CORE, resource.RLIMIT_FSIZE, resource.RLIMIT_NPROC)],
        "signals": [int(signal.getsignal(signal.SIGXFSZ)), int(signal.getsignal(signal.SIGINT))],
    }
"""


def test_every_worker_has_the_walls_the_zygote_set_up_once(pool):
    """Set up once in the zygote (environment, directory, user, no-new-privs) or per worker, the same in each."""
    job = {"source": WALLS_SEEN, "entry": "walls", "args": {}, "context": {"state": {}}, "walls": "process"}
    seen = [pool.run(Call.from_dict(job), LIMITS, no_rpc).output for _ in range(3)]
    assert seen[0] == seen[1] == seen[2]
    expected = {
        "no_new_privs": "1",
        "seccomp": "2",
        "uid": 65534,
        "environment": [],
        "cwd": "removed",
        "own_session": True,
        "descriptors": 5,  # 0-2 on /dev/null, the call's socket and the listing's own
        "rlimits": [[0, 0], [0, 0], [0, 0]],
        "signals": [int(signal.SIG_IGN), int(signal.SIG_DFL)],
    }
    assert seen[0] == expected
