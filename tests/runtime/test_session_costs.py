"""Issue 36: a call's record keeps its result and delta, not the whole state; the state's
values have a size limit that names the key; the host's steps count in the call's deadline."""

from __future__ import annotations

import json
import time

import pytest

from runtime import Runtime
from runtime._session import CallRecord
from runtime._state import StateDelta
from runtime.store._memory import MemoryStore
from sandbox.common.limits import Limits
from tests.conftest import COUNTER
from tests.runtime.store.test_store import store_url  # noqa: F401  (the fixture: every store, a fresh namespace each)

BIG = "x" * 200_000

WRITE_NOTE = '''
def write_note(size: int) -> int:
    """Writes a note of ``size`` characters.

    Args:
        size: How long the note is.
    """
    context.state["note"] = "n" * size
    return size
'''


def test_a_call_record_keeps_the_delta_not_the_state(store_url: str) -> None:  # noqa: F811
    with Runtime(store=store_url) as rt:
        rt.add_tool(COUNTER)
        rt.store.create_session(rt.app_name, rt.user_id, "s", {"blob": BIG})
        first = rt.call("bump", {"n": 1}, session_id="s", call_id="c1")
        record = rt.store.get_call("s", "c1")
        assert first.success and record is not None and record.result is not None
        assert "state" not in record.result
        assert record.result["state_delta"] == {"set": {"count": 1}, "deleted": []}
        assert len(json.dumps(record.result)) < 1_000, "the record costs what the call changed"
        again = rt.call("bump", {"n": 1}, session_id="s", call_id="c1")
        assert again.replayed and again.output == 1
        assert again.state == {"blob": BIG, "count": 1}, "a replay answers with the session's state"
        assert rt.store.require_session("s").state["count"] == 1


def test_a_record_written_with_the_state_still_replays_it() -> None:
    """What the code before issue 36 stored (the state the call left, in the result) stays readable."""
    with Runtime(store="memory://") as rt:
        rt.add_tool(COUNTER)
        rt.store.create_session(rt.app_name, rt.user_id, "s", {})
        assert rt.store.begin_call("s", "old", "bump", {"n": 1}) is None
        left = {"count": 7}
        old_result = {"success": True, "output": 7, "error": None, "state": left, "logs": ""}
        old_result["state_delta"] = {"set": left, "deleted": []}
        rt.store.commit_call("s", "old", StateDelta(dict(left)), [], old_result)
        again = rt.call("bump", {"n": 1}, session_id="s", call_id="old")
        assert again.replayed and again.output == 7 and again.state == left


@pytest.mark.parametrize("walls", ["all", "process"])
def test_a_value_over_the_per_value_limit_fails_naming_its_key(walls: str) -> None:
    limits = Limits(state_value_size=10_000)
    with Runtime(store="memory://", limits=limits, walls=walls) as rt:
        rt.add_tool(WRITE_NOTE)
        assert rt.call("write_note", {"size": 9_000}, session_id="s").success
        over = rt.call("write_note", {"size": 20_000}, session_id="s")
        assert not over.success and over.error is not None
        assert over.error.kind == "output_too_large"
        assert "'note'" in over.error.message and "state_value_size" in over.error.message
        assert len(rt.store.require_session("s").state["note"]) == 9_000, "nothing of the call was stored"


WRITE_CONTROL = '''
def write_control(size: int) -> int:
    """Writes ``size`` control characters (six bytes of JSON each, escaped).

    Args:
        size: How many.
    """
    context.state["note"] = chr(1) * size
    return size
'''


@pytest.mark.parametrize("walls", ["all", "process"])
def test_a_string_of_escaped_characters_is_measured_as_its_json(walls: str) -> None:
    with Runtime(store="memory://", limits=Limits(state_value_size=10_000), walls=walls) as rt:
        rt.add_tool(WRITE_CONTROL)
        over = rt.call("write_control", {"size": 2_000}, session_id="s")  # 12002 bytes of JSON
        assert not over.success and over.error is not None
        assert over.error.kind == "output_too_large" and "'note'" in over.error.message
        assert "note" not in rt.store.require_session("s").state


class SlowToLoad(MemoryStore):
    """A memory store whose sessions take ``delay`` seconds to load (a large state, a slow disk)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def _begin_call(self, record: CallRecord) -> CallRecord | None:
        time.sleep(self.delay)
        return super()._begin_call(record)


def test_loading_the_session_counts_in_the_calls_deadline() -> None:
    store = SlowToLoad(delay=0.0)
    with Runtime(store=store, limits=Limits(wall_time=0.5, cpu_time=0.5)) as rt:
        rt.add_tool(COUNTER)
        assert rt.call("bump", {"n": 1}, session_id="s").success
        store.delay = 0.8
        late = rt.call("bump", {"n": 1}, session_id="s", call_id="late")
        assert not late.success and late.error is not None and late.error.kind == "timeout"
        assert rt.store.require_session("s").state == {"count": 1}, "nothing was committed"
        record = rt.store.get_call("s", "late")
        assert record is not None and record.status == "failed"
