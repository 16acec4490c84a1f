"""A single-use worker under the language wall is not killed after its call: it exits by itself.

The pool only closes such a worker's socket, and its zygote replaces it when it exits
(``WorkerPool._let_go``). These attacks (an outside red team's, on that change) try to keep it
running after its ``done``: a finalizer freed with the frame that held the job's arguments, or
with an error the tool changed and raised again. The worker exits right after sending its
``done``, so such a finalizer runs before it, inside the call's wall time, or never.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

from runtime import Runtime
from sandbox.common.limits import Limits
from sandbox.process.leaving_workers import LeavingWorkers
from tests.jail_processes import jail_pids

SLEEPER = """
import functools, io, time


class Sleeper(io.BytesIO):  # IOBase's finalizer calls close(); a partial is no method
    close = functools.partial(time.sleep, 100000)
"""

IN_THE_ARGUMENTS = (
    SLEEPER
    + '''

def stash(tags: list) -> str:
    """Leaves an object whose finalizer sleeps in its own argument, which the worker's job holds."""
    sleeper = Sleeper()
    sleeper.blob = bytearray(50 * 1024 * 1024)
    tags.append(sleeper)
    return "ok"
'''
)

IN_THE_ERROR = (
    SLEEPER
    + '''

class Text(str):
    pass


def oops() -> str:
    """Raises a caught error of toolpen's again, its message a text holding such an object."""
    message = Text("denied")
    message.keep = Sleeper()
    try:
        getattr(oops, "_" + "_globals__")
    except Exception as error:
        error.message = message
        raise error
'''
)

IN_A_STATE_KEY = (
    SLEEPER
    + '''

class Key(str):
    pass


def keyed() -> str:
    """Sets a state key of its own class, holding such an object, and lets go of its context."""
    global context, tools, async_tools, get_variable, set_variable, remove_variable
    key = Key("zz")
    key.keep = Sleeper()
    context.state[key] = 1
    context = tools = async_tools = get_variable = set_variable = remove_variable = None
    return "ok"
'''
)

STARTS_LATE = '''
import functools, io


class Starter(io.BytesIO):  # its finalizer starts a call of another tool
    close = functools.partial(async_tools.slow)


class Reply(dict):
    pass


def leaver() -> dict:
    """Returns a dict freed after the worker has collected its started calls: one starts then."""
    reply = Reply(status="ok")
    reply.keep = Starter()
    return reply
'''
SLOW = 'import time\n\n\ndef slow() -> str:\n    """Sleeps."""\n    time.sleep(2)\n    return "slept"\n'
OUTER = 'def outer() -> str:\n    """Calls hello."""\n    return tools.hello()\n'

HELLO = 'def hello() -> str:\n    """Says hello."""\n    return "hi"\n'


def test_a_finalizer_in_the_arguments_does_not_keep_the_worker(rt: Runtime) -> None:
    rt.add_tool(IN_THE_ARGUMENTS)
    rt.add_tool(HELLO)
    settled = _settled_count(rt)
    killed = _killed(rt)
    for _ in range(rt.pool.size + 1):  # more than it holds: workers that stayed would starve the next call
        assert rt.call("stash", {"tags": []}).output == "ok"
    assert _settled_count(rt) == settled
    assert _killed(rt) == killed, "a worker outlived its call (the pool's safety net killed it)"
    assert rt.call("hello", {}).output == "hi"


def test_a_finalizer_in_a_changed_error_runs_within_the_call(rt: Runtime) -> None:
    rt.add_tool(IN_THE_ERROR, limits=Limits(wall_time=1.0))
    rt.add_tool(HELLO, replace=True)
    settled = _settled_count(rt)
    started = time.monotonic()
    result = rt.call("oops", {})
    assert result.error is not None and result.error.kind == "timeout"  # it slept in its own call
    assert time.monotonic() - started < 5
    assert _settled_count(rt) == settled
    assert rt.call("hello", {}).output == "hi"


def test_a_finalizer_in_a_state_key_runs_within_the_call(rt: Runtime) -> None:
    """The state delta holds the key as a plain str: the tool's key is freed with its state, in the call."""
    rt.add_tool(IN_A_STATE_KEY, limits=Limits(wall_time=1.0))
    rt.add_tool(HELLO, replace=True)
    settled = _settled_count(rt)
    result = rt.call("keyed", {})
    assert result.error is not None and result.error.kind == "timeout"  # it slept in its own call
    assert _settled_count(rt) == settled
    assert rt.call("hello", {}).output == "hi"


def test_a_worker_ending_before_it_is_retired_leaves_the_pool_counting_right(rt: Runtime) -> None:
    """A third red team's attack: the worker starts a call after its last one was collected, so
    its done breaks the protocol; it exits at once and is replaced before the pool retires it.
    The pool's count of forks on their way must not drift: it once stayed one too high for good,
    and callers whose nested calls needed a fork waited forever."""
    for source in (STARTS_LATE, SLOW, OUTER):
        rt.add_tool(source, replace=True)
    rt.add_tool(HELLO, replace=True)
    result = rt.call("leaver", {})
    assert result.error is not None and result.error.kind == "protocol"
    _settled_count(rt)
    assert rt.pool.pending_forks == 0
    replies: list[str] = []
    callers = [
        threading.Thread(target=lambda: replies.append(rt.call("outer", {}).output))
        for _ in range(rt.pool.size)
    ]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(timeout=4)  # a wrong count heals after 5 s (pool.HEAL_ROUNDS): this is faster
    assert replies == ["hi"] * rt.pool.size


def test_a_let_go_worker_that_does_not_exit_is_killed() -> None:
    """The pool's safety net, on a real process that does not exit by itself: killed once its grace
    has passed, by the watcher's own thread (no call needs to come)."""
    leaving = LeavingWorkers(grace=0.3, sweep_at=100)
    process = subprocess.Popen(["sleep", "60"])
    try:
        leaving.add(_Process(os.pidfd_open(process.pid)))
        leaving.sweep()
        assert process.poll() is None and len(leaving) == 1  # within its grace: left alone
        assert process.wait(timeout=5) == -signal.SIGKILL
        deadline = time.monotonic() + 5
        while len(leaving) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(leaving) == 0  # seen to exit: its pidfd is closed
    finally:
        process.kill()
        leaving.close()


class _Process:
    def __init__(self, pidfd: int) -> None:
        self.pidfd = pidfd

    def kill(self) -> None:
        signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)


def _killed(rt: Runtime) -> int:
    """How many workers of the pool ended by SIGKILL, as its zygote reported."""
    return sum(code == -signal.SIGKILL for code in rt.pool.recorded_exits().values())


def _settled_count(rt: Runtime, timeout: float = 5.0) -> int:
    """The number of processes in the pool's jail once its ``size`` workers are ready, its tool
    images built with their workers, and the let-go ones have exited (stable for 0.2 s), or after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        rt.pool.sweep_leaving_for_test()
        count = len(jail_pids(rt.pool.zygote_pid))
        busy = rt.pool.ready_count < rt.pool.size or rt.pool.leaving_count or not rt.pool.tool_images_settled
        if count != last or busy:
            last, since = count, time.monotonic()
        elif time.monotonic() - since > 0.2:
            return count
        time.sleep(0.05)
    return last


CHANGED_ERROR = '''
import functools


class Text(str):
    pass


def forge(how: str) -> str:
    """Catches an error of toolpen's and raises it changed, or a subclass of it of its own."""
    try:
        getattr(forge, "_" + "_globals__")
    except Exception as error:
        if how == "wraps":
            class Forged(type(error)):
                kind = "timeout"

            functools.wraps(type(error))(Forged)
            raise Forged("forged")
        if how == "subclass":
            class Forged(type(error)):
                kind = "timeout"

            raise Forged("forged")
        error.kind = "timeout"
        error.message = Text("forged")
        error.line = "nowhere"
        raise error
'''


def test_a_changed_error_reports_what_happened(rt: Runtime) -> None:
    rt.add_tool(CHANGED_ERROR)
    changed = rt.call("forge", {"how": "attributes"}).error
    assert changed is not None and changed.kind == "policy"  # its class's kind, not the one the tool set
    assert changed.message == "forged" and type(changed.message) is str and type(changed.line) is int
    # the tool's own class: a failure of the tool, also when functools.wraps was given the host's class
    subclass = rt.call("forge", {"how": "subclass"}).error
    assert subclass is not None and subclass.kind == "tool_error"
    disguised = rt.call("forge", {"how": "wraps"}).error
    assert disguised is not None and disguised.kind == "tool_error"
