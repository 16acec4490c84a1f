"""A session call's commit on the memory and Redis stores is done within the call's deadline or
fails it with ``timeout`` and nothing stored (issue 36; SQLite and PostgreSQL:
``test_lazy_state.py``). Real workers; Redis is the server of ``TOOLPEN_TEST_STORE_URLS``, held
busy by a ``CLIENT PAUSE`` from a second connection while the call commits."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
import redis

from runtime import Runtime
from runtime.store._redis_store import split_prefix
from sandbox.common.limits import Limits
from tests.runtime.store.test_store import REDIS_URLS, fresh_redis

SLOW = "import time\n\ndef slow() -> int:\n    time.sleep(0.4)\n    context.state['n'] = 1\n    return 1\n"
WALL_TIME = 1.0


@pytest.fixture
def redis_url() -> Iterator[str]:
    if not REDIS_URLS:
        pytest.skip("no Redis server in TOOLPEN_TEST_STORE_URLS")
    yield from fresh_redis(REDIS_URLS[0])


def _call_held_busy(url: str, hold: Callable[[Runtime], Callable[[], None]]) -> None:
    """Run ``slow`` in a session while ``hold(rt)`` (called once the call has started, returning
    its release) keeps the store busy past the call's deadline; the call fails cleanly."""
    with Runtime(store=url, limits=Limits(wall_time=WALL_TIME)) as rt:
        rt.add_tool(SLOW)
        rt.store.create_session(rt.app_name, rt.user_id, "s", {"k": 0})
        events = len(rt.store.require_session("s").events)
        held = threading.Event()

        def busy() -> None:
            while rt.store.get_call("s", "c1") is None:
                time.sleep(0.01)
            release = hold(rt)
            held.set()
            time.sleep(WALL_TIME + 0.3)
            release()

        other = threading.Thread(target=busy)
        other.start()
        start = time.monotonic()
        result = rt.call("slow", {}, session_id="s", call_id="c1")
        other.join()
        assert held.is_set()
        assert not result.success and result.error is not None and result.error.kind == "timeout", (
            result.error
        )
        assert "nothing was stored" in result.error.message
        assert time.monotonic() - start < WALL_TIME + 1.5
        time.sleep(0.2)  # what the server might still run after the pause: nothing
        session = rt.store.require_session("s")
        assert (session.state, len(session.events)) == ({"k": 0}, events)
        record = rt.store.get_call("s", "c1")
        assert record is not None and record.status == "failed"


def test_memory_commit_waits_for_the_store_only_until_the_deadline() -> None:
    def hold(rt: Runtime) -> Callable[[], None]:
        lock = rt.store._data_lock  # type: ignore[attr-defined]  # another thread's long operation
        lock.acquire()
        return lock.release

    _call_held_busy("memory://", hold)


def test_redis_commit_held_busy_past_the_deadline_stores_nothing(redis_url: str) -> None:
    client = redis.Redis.from_url(split_prefix(redis_url)[0])

    def hold(rt: Runtime) -> Callable[[], None]:
        client.execute_command("CLIENT", "PAUSE", int((WALL_TIME + 0.3) * 1000), "WRITE")
        return lambda: client.execute_command("CLIENT", "UNPAUSE")

    try:
        _call_held_busy(redis_url, hold)
    finally:
        client.close()
