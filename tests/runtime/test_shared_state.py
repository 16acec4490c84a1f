"""``app:`` and ``user:`` keys shared by many sessions lose no update, on every store.

200 calls of a counting tool spread over 20 sessions of two users run at once: from threads of
one runtime (``memory://``), and from two processes sharing a store (SQLite, PostgreSQL, Redis).
Every seventh call fails after counting. The app's, each user's and each session's counters end
at exactly the number of successful calls, and the successful calls saw 1, 2, ..., n. Two
``toolpen serve`` replicas are in ``tests/runtime/server/test_server_replicas.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from runtime import Runtime
from runtime._calls import CallPlan, Invocation, Outcome
from runtime._state import Scope, StateDelta
from sandbox.common.errors import Conflict
from sandbox.common.limits import Limits
from tests.runtime.store.test_store import STORE_URLS, fresh_store

CALLS = 200
SESSIONS = 20
TESTS = Path(__file__).resolve().parent

COUNT = '''
def count(fail: bool = False) -> int:
    """Counts calls: the app's, the user's and the session's; fails after counting when asked.

    Args:
        fail: Raise after counting.
    """
    context.state["app:count"] = context.state.get("app:count", 0) + 1
    context.state["user:count"] = context.state.get("user:count", 0) + 1
    context.state["count"] = context.state.get("count", 0) + 1
    if fail:
        raise ValueError("asked to fail")
    return context.state["app:count"]
'''


def session_of(i: int) -> tuple[str, str]:
    """Call ``i``'s (session, user): 20 sessions, even ones of user u0, odd ones of u1."""
    return f"s{i % SESSIONS}", f"u{i % SESSIONS % 2}"


def fails(i: int) -> bool:
    return i % 7 == 3


def run_calls(url: str, app: str, indices: list[int]) -> list[dict[str, Any]]:
    """Make the calls ``indices`` at once from 5 threads of a runtime of their own."""
    with Runtime(store=url, app_name=app, pool_size=2) as rt:
        return run_calls_on(rt, indices, threads=5)


def run_calls_on(rt: Runtime, indices: list[int], threads: int) -> list[dict[str, Any]]:
    """Make the calls ``indices`` at once from ``threads`` threads of ``rt``."""
    rt.add_tool(COUNT)

    def call(i: int) -> dict[str, Any]:
        session, user = session_of(i)
        result = rt.call("count", {"fail": fails(i)}, session_id=session, user_id=user, call_id=f"c{i}")
        kind = None if result.error is None else result.error.kind
        return {"i": i, "success": result.success, "output": result.output, "kind": kind}

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(call, indices))


def main() -> None:
    """In a child process: ``url app which processes``; prints the results as JSON."""
    url, app, which, processes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    print(json.dumps(run_calls(url, app, list(range(which, CALLS, processes)))))


def in_processes(url: str, app: str, processes: int = 2) -> list[dict[str, Any]]:
    """The calls split over ``processes`` processes started together."""
    code = f"import sys; sys.path.insert(0, {str(TESTS)!r}); from tests.runtime.test_shared_state import main; main()"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", code, url, app, str(which), str(processes)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for which in range(processes)
    ]
    results = []
    for child in children:
        out, _ = child.communicate(timeout=300)
        assert child.returncode == 0
        results += json.loads(out)
    return results


@pytest.fixture(params=STORE_URLS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    yield from fresh_store(str(request.param), tmp_path)


@pytest.mark.slow
def test_200_concurrent_increments_end_at_the_successful_calls(store_url: str) -> None:
    app = f"app-{uuid.uuid4().hex[:8]}"
    if store_url == "memory://":  # one process: the store lives in it
        with Runtime(store=store_url, app_name=app) as rt:
            results = run_calls_on(rt, list(range(CALLS)), threads=10)
            sessions = {f"s{k}": rt.store.require_session(f"s{k}") for k in range(SESSIONS)}
    else:
        results = in_processes(store_url, app)
        with Runtime(store=store_url, app_name=app) as rt:
            sessions = {f"s{k}": rt.store.require_session(f"s{k}") for k in range(SESSIONS)}
    assert sorted(r["i"] for r in results) == list(range(CALLS))
    succeeded = [r for r in results if r["success"]]
    assert all(r["kind"] == "tool_error" for r in results if not r["success"])
    assert len(succeeded) == CALLS - sum(fails(i) for i in range(CALLS))
    assert sorted(r["output"] for r in succeeded) == list(range(1, len(succeeded) + 1))
    for name, session in sessions.items():
        mine = [r for r in succeeded if session_of(r["i"])[0] == name]
        of_user = [r for r in succeeded if session_of(r["i"])[1] == session.user_id]
        assert session.state == {"app:count": len(succeeded), "user:count": len(of_user), "count": len(mine)}
        assert len(session.events) == 2 * len(mine)


def test_only_calls_that_name_shared_keys_wait_for_their_lock_and_not_on_their_time() -> None:
    with Runtime(store="memory://", limits=Limits(wall_time=2.0, cpu_time=2.0)) as rt:
        rt.add_tool('def touch() -> int:\n    """Touches."""\n    context.state["n"] = 1\n    return 1\n')
        rt.add_tool(COUNT)
        counted: list[bool] = []
        with rt.store.lock_scopes(rt.app_name, rt.user_id, {Scope.APP}):
            assert rt.call("touch", session_id="s1").success  # a session key only: no wait
            counter = threading.Thread(
                target=lambda: counted.append(rt.call("count", session_id="s2").success)
            )
            counter.start()
            counter.join(2.5)
            assert counter.is_alive()  # waits for the app's lock, longer than its wall time
        counter.join(30)
        assert counted == [True]


def plan_writing_app(rt: Runtime, session_id: str, meanwhile: Any) -> CallPlan:
    """A call whose code named no shared key but whose run writes ``app:n`` (as a tool replaced
    during the call could); ``meanwhile`` runs in the middle of it."""

    def steps(snapshot: dict[str, Any], invocation: Invocation) -> Outcome:
        meanwhile()
        return Outcome(
            True, "done", state_delta=StateDelta({"app:n": snapshot["state"].values.get("app:n", 0) + 1})
        )

    return CallPlan("sneaky", {}, steps, {}, f"sneaky-{session_id}", session_id, rt.user_id, False, 10.0)


def test_a_shared_write_the_code_did_not_name_commits_only_if_nothing_changed_meanwhile() -> None:
    bump = 'def bump() -> int:\n    """Bumps."""\n    context.state["app:n"] = context.state.get("app:n", 0) + 1\n    return 1\n'
    with Runtime(store="memory://") as rt:
        rt.add_tool(bump)
        quiet = rt.unit_of_work.run(plan_writing_app(rt, "s1", lambda: None))
        assert quiet.success and rt.store.require_session("s1").state == {"app:n": 1}
        clash = rt.unit_of_work.run(plan_writing_app(rt, "s2", lambda: rt.call("bump", session_id="s3")))
        assert not clash.success and isinstance(clash.error, Conflict)
        assert "changed them meanwhile; nothing was stored" in clash.error.message
        assert rt.store.require_session("s2").state == {"app:n": 2}  # the other call's, not 2 again
        assert rt.store.require_session("s2").events == []
        assert rt.store.get_call("s2", "sneaky-s2").status == "failed"  # type: ignore[union-attr]


FILL_APP = '''
def fill_app(count: int) -> int:
    """Writes count app: keys.

    Args:
        count: How many.
    """
    for index in range(count):
        context.state[f"app:k{index}"] = "v"
    return count
'''


def test_many_app_keys_reach_other_sessions_and_too_many_are_refused(store_url: str) -> None:
    """The review's case at a small limit: thousands of app: keys within the state limit are seen
    by another session's call; past it the call fails with ``output_too_large`` and stores nothing."""
    with Runtime(store=store_url, limits=Limits(state_size=64 * 1024)) as rt:
        rt.add_tool(FILL_APP)
        rt.add_tool('def peek() -> int:\n    """Counts the state keys."""\n    return len(context.state)\n')
        assert rt.call("fill_app", {"count": 3000}, session_id="writer").success
        seen = rt.call("peek", {}, session_id="reader")
        assert seen.output == 3000 and seen.state["app:k2999"] == "v"
        refused = rt.call("fill_app", {"count": 9000}, session_id="writer")
        assert refused.error is not None and refused.error.kind == "output_too_large", refused.error
        assert rt.call("peek", {}, session_id="reader").output == 3000
