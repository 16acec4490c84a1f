"""Exhausting the host: huge state, huge RPC parameters, forged frames."""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused, attack


def test_a_huge_state_is_refused_in_the_worker(rt: Runtime) -> None:
    source = """
        def state_flood() -> int:
            context.state["x"] = [0] * 3_000_000
            return 1
        """
    result = attack(rt, source, session_id="review-state-flood")
    assert_refused(rt, result, "output_too_large")
    assert "state" in result.error.message
    assert rt.call("still_ok", {}, session_id="review-state-flood").state == {}


def test_state_grown_call_by_call_is_refused(rt: Runtime) -> None:
    source = """
        def state_grow(n: int) -> int:
            context.state[f"k{n}"] = "x" * 1_500_000
            return n
        """
    results = [attack(rt, source, {"n": n}, session_id="review-state-grow") for n in range(4)]
    assert [r.success for r in results] == [True, True, False, False]
    assert results[2].error.kind == "output_too_large"


@pytest.mark.parametrize(
    "call",
    [
        "tools.still_ok({'x': [0] * 3_000_000})",
        "ces_requests.post('http://127.0.0.1:9/', data='x' * 9_000_000)",
    ],
)
def test_a_huge_rpc_is_refused_in_the_worker(rt: Runtime, call: str) -> None:
    source = f"""
        def rpc_flood() -> str:
            {call}
            return "sent"
        """
    result = attack(rt, source)
    assert_refused(rt, result, ("output_too_large", "tool_error"))  # tools.* failures arrive as ToolCallError
    assert "over the limit" in result.error.message


def test_a_deeply_nested_frame_is_a_protocol_error() -> None:
    from sandbox.wire import ProtocolError, decode

    with pytest.raises(ProtocolError):
        decode(b"[" * 200_000 + b"]" * 200_000)
