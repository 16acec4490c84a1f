"""The public Python API end to end: real workers, real stores."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from runtime import Limits, Runtime
from sandbox.common.errors import InvalidSource, PolicyViolation
from sandbox.common.walls import WALLS_MODES
from tests.conftest import SAMPLES

COUNTER = '''
def increment(by: int = 1) -> int:
    """Adds to the counter in the session state."""
    context.state["count"] = context.state.get("count", 0) + by
    return context.state["count"]
'''

FAILS_AFTER_WRITE = '''
def write_then_fail(value: str) -> None:
    """Writes the state, then fails."""
    context.state["written"] = value
    raise ValueError("something went wrong")
'''


def test_call_returns_output_logs_and_delta(rt: Runtime) -> None:
    rt.add_tool(COUNTER)
    result = rt.call("increment", {"by": 2}, context={"state": {"count": 40}})
    assert result.success, result.error
    assert result.output == 42
    assert result.state_delta == {"set": {"count": 42}, "deleted": []}
    assert result.state == {"count": 42}


def test_add_tool_refuses_bad_source(rt: Runtime) -> None:
    with pytest.raises(InvalidSource):
        rt.add_tool(f"def {'a' * 65}(x: int) -> int:\n    return x\n")
    assert rt.add_tool('def CamelName(x: int) -> int:\n    """Runs, as on CES."""\n    return x\n')
    with pytest.raises(PolicyViolation):
        rt.add_tool('def sneaky() -> str:\n    """Reads a dunder."""\n    return ().__class__.__bases__\n')


def test_arguments_are_validated_before_running(rt: Runtime) -> None:
    rt.add_tool(COUNTER)
    result = rt.call("increment", {"by": "two"})
    assert not result.success
    assert result.error is not None and result.error.kind == "invalid_arguments"
    assert "by" in result.error.message
    unknown = rt.call("increment", {"step": 1})
    assert unknown.error is not None and "step" in unknown.error.message


def test_unknown_tool_is_not_found(rt: Runtime) -> None:
    result = rt.call("nope", {})
    assert result.error is not None and result.error.kind == "not_found"


def test_state_accumulates_in_a_sqlite_session(sqlite_url: str) -> None:
    source = (SAMPLES / "update_customer_loyalty_points.py").read_text()
    with Runtime(store=sqlite_url) as rt:
        rt.add_tool(source)
        first = rt.call("update_customer_loyalty_points", {"points_to_add": 50}, session_id="s1")
        second = rt.call("update_customer_loyalty_points", {"points_to_add": 25}, session_id="s1")
    assert first.success and second.success, (first.error, second.error)
    assert second.output["loyalty_points"] == 75
    assert "Updated loyalty points to: 75" in second.logs
    with Runtime(store=sqlite_url) as rt:
        session = rt.store.require_session("s1")
    assert session.state["customer_profile"]["loyalty_points"] == 75
    kinds = [
        next(iter(part for part in e.content.model_dump(exclude_none=True)["parts"][0]))
        for e in session.events
    ]
    assert kinds == ["function_call", "function_response"] * 2
    assert session.events[1].actions.state_delta["set"]["customer_profile"]["loyalty_points"] == 50


def test_failing_tool_leaves_state_untouched(sqlite_url: str) -> None:
    with Runtime(store=sqlite_url) as rt:
        rt.add_tool(COUNTER)
        rt.add_tool(FAILS_AFTER_WRITE)
        assert rt.call("increment", {}, session_id="s").success
        failed = rt.call("write_then_fail", {"value": "x"}, session_id="s")
        assert not failed.success
        assert failed.error is not None and failed.error.kind == "tool_error"
        assert failed.error.line == 5
        session = rt.store.require_session("s")
    assert session.state == {"count": 1}
    assert len(session.events) == 2


def test_non_json_state_fails_naming_the_key(rt: Runtime) -> None:
    rt.add_tool(
        'def store_function() -> None:\n    """Stores a function."""\n    context.state["fn"] = len\n'
    )
    result = rt.call("store_function", {}, session_id="s")
    assert not result.success
    assert result.error is not None and result.error.kind == "invalid_state"
    assert "fn" in result.error.message
    assert rt.store.require_session("s").state == {}


def test_retried_call_returns_the_stored_result(rt: Runtime) -> None:
    rt.add_tool(COUNTER)
    first = rt.call("increment", {}, session_id="s", call_id="c1")
    again = rt.call("increment", {}, session_id="s", call_id="c1")
    assert first.output == again.output == 1
    assert again.replayed
    assert rt.store.require_session("s").state["count"] == 1


def test_a_reused_call_id_with_other_arguments_runs_as_a_new_call(sqlite_url: str) -> None:
    # models behind proxies and local servers repeat ids such as call_0 across turns
    with Runtime(store=sqlite_url) as rt:
        rt.add_tool(COUNTER)
        assert rt.call("increment", {"by": 1}, session_id="s", call_id="call_0").output == 1
        other = rt.call("increment", {"by": 100}, session_id="s", call_id="call_0")
        assert (other.output, other.replayed, other.call_id) == (101, False, "call_0")
        # each of the two calls still replays itself, and both records are kept
        assert rt.call("increment", {"by": 100}, session_id="s", call_id="call_0").replayed
        first = rt.call("increment", {"by": 1}, session_id="s", call_id="call_0")
        assert (first.output, first.replayed) == (1, True)
        assert rt.store.require_session("s").state["count"] == 101
        assert rt.store.get_call("s", "call_0") is not None


@pytest.mark.slow
@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_no_lost_update_with_concurrent_calls(store: str, sqlite_url: str) -> None:
    with Runtime(store="memory://" if store == "memory" else sqlite_url) as rt:
        rt.add_tool(COUNTER)
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda _: rt.call("increment", {}, session_id="shared"), range(200)))
        assert all(r.success for r in results), [r.error for r in results if not r.success][:3]
        assert rt.store.require_session("shared").state["count"] == 200
    assert sorted(r.output for r in results) == list(range(1, 201))


def test_temp_keys_are_visible_but_never_stored(rt: Runtime) -> None:
    rt.add_tool(
        'def read_temp() -> str:\n    """Reads and writes temp keys."""\n'
        '    context.state["temp:scratch"] = "x"\n    return context.state["temp:today"]\n'
    )
    result = rt.call("read_temp", {}, session_id="s", context={"state": {"temp:today": "2026-11-29"}})
    assert result.success and result.output == "2026-11-29"
    assert rt.store.require_session("s").state == {}


def test_acall_shares_the_implementation(rt: Runtime) -> None:
    rt.add_tool(COUNTER)
    results = asyncio.run(_gather(rt))
    assert sorted(r.output for r in results) == [1, 2, 3]


async def _gather(rt: Runtime) -> list:
    return list(await asyncio.gather(*(rt.acall("increment", {}, session_id="a") for _ in range(3))))


def test_per_tool_limits_apply(rt: Runtime) -> None:
    rt.add_tool(
        'def spin() -> None:\n    """Never ends."""\n    while True:\n        pass\n',
        limits=Limits(wall_time=1.0, cpu_time=1.0),
    )
    result = rt.call("spin", {})
    assert result.error is not None and result.error.kind == "timeout"


@pytest.fixture(scope="module", params=WALLS_MODES)
def walled(request: pytest.FixtureRequest) -> Iterator[Runtime]:
    with Runtime(store="memory://", walls=request.param) as runtime:
        yield runtime


@pytest.mark.parametrize("sample", sorted(p.stem for p in (SAMPLES / "context").glob("*.json")))
def test_every_sample_runs_with_its_fixture_under_both_walls(walled: Runtime, sample: str) -> None:
    walled.add_tool((SAMPLES / f"{sample}.py").read_text(), replace=True)
    fixture = SAMPLES / "context" / f"{sample}.json"
    context = json.loads(fixture.read_text()) if fixture.exists() else {}
    args = SAMPLE_ARGS.get(sample, {})
    result = walled.call(sample, args, context=context, session_id=f"sample-{sample}")
    assert result.success, result.error
    assert result.output == SAMPLE_OUTPUTS[sample]


SAMPLE_ARGS = {
    "update_customer_loyalty_points": {"points_to_add": 50},
    "get_customer": {"customer_id": "123"},
    "get_current_weather": {"location": "Boston, MA", "unit": "fahrenheit"},
    "lookup_order": {"order_id": "a-1001"},
    "book_table": {"date": "2026-11-30", "time": "19:30", "party_size": 4},
    "issue_refund": {"order_id": "A-1001", "amount": 40, "reason": "late"},
}

SAMPLE_OUTPUTS = {
    "get_last_user_utterance": "Where is my order A-1001?",
    "update_customer_loyalty_points": {
        "email": "ana@example.com",
        "loyalty_points": 150,
        "plan": "Gold",
    },
    # No network in tests and the egress policy refuses it anyway: the published sample returns None.
    "get_random_fact": None,
    "get_customer": {
        "customer_id": "123",
        "name": "Ana Souza",
        "plan": "Gold",
        "loyalty_points": 1200,
    },
    "get_current_weather": "The temperature in Boston, MA is 75 degrees Fahrenheit.",
    "lookup_order": {
        "found": True,
        "order_id": "A-1001",
        "status": "shipped",
        "carrier": "DHL",
        "eta": "2026-12-02",
        "days_left": 3,
    },
    "book_table": {"status": "confirm", "summary": "A table for 4 on 2026-11-30 at 19:30."},
    "issue_refund": {"status": "refunded", "refund_id": "RF-0001", "order_id": "A-1001", "amount": 40},
}


def test_booking_keeps_its_draft_across_turns(tmp_path: Path) -> None:
    with Runtime(store=f"sqlite:///{tmp_path / 's.db'}") as rt:
        rt.add_tool((SAMPLES / "book_table.py").read_text())
        assert rt.call("book_table", {"party_size": 4}, session_id="b").output["missing"] == ["date", "time"]
        assert (
            rt.call("book_table", {"date": "2026-12-01", "time": "20:00"}, session_id="b").output["status"]
            == "confirm"
        )
        booked = rt.call("book_table", {"confirm": True}, session_id="b")
        assert booked.output["booking"]["reference"] == "BK-0001"
        state = rt.store.require_session("b").state
    assert "booking_draft" not in state and state["bookings"][0]["party_size"] == 4
