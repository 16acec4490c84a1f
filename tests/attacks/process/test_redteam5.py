"""Red team 5 (issue 36): lazy session state under walls="process", where tool code has its worker's socket.

A ``state.read`` the tool sends itself, naming another session, another user's keys or keys it
does not have, reads only the call's own state, and each value at most once however many
reads it sends (eight at once included): what the host encodes for it is at most the state; a ``done`` the tool writes itself cannot set a
value over ``state_value_size`` nor leave a state over ``state_size``, however it mixes sets and
deletes; the host checks each, whatever the worker said.
"""

from __future__ import annotations

from typing import Any

import pytest

from runtime import Runtime
from sandbox.common.limits import Limits

SEED = "def seed(n: int) -> int:\n    context.state['big'] = 'x' * 20000\n    context.state['mine'] = n\n    return 1\n"
READ = """
def read(params: dict) -> object:
    got = object.__getattribute__(tools, "_rpc")("state", "read", params)
    return {key: len(value) if isinstance(value, str) else value for key, value in got.items()}
"""
REREAD = """
def reread(again: int) -> dict:
    rpc, start = object.__getattribute__(tools, "_rpc"), object.__getattribute__(async_tools, "_start")
    waits = [start("state", "read", {"keys": ["big"]}) for _ in range(8)]
    sent, refused = 0, []
    for wait in [*waits, *[lambda: rpc("state", "read", {"keys": ["big", "big"]})] * again]:
        try:
            sent += len(wait().get("big", ""))
        except Exception as error:
            refused.append(getattr(error, "kind", type(error).__name__))
    return {"sent": sent, "refused": refused}
"""
FORGE = """
import json, os, stat, struct, time


def forge(delta: dict) -> int:
    fd = next(fd for fd in range(3, 256) if _socket(fd))
    body = json.dumps({"op": "done", "success": True, "output": 1, "state_delta": delta, "logs": ""}).encode()
    os.write(fd, struct.pack(">I", len(body)) + body)
    time.sleep(30)
    return 0


def _socket(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
"""


@pytest.fixture(scope="module")
def rt() -> Any:
    limits = Limits(state_size=100_000, state_value_size=50_000)
    with Runtime(store="memory://", walls="process", limits=limits) as runtime:
        for source in (SEED, READ, REREAD, FORGE):
            runtime.add_tool(source)
        assert runtime.call("seed", {"n": 1}, session_id="a", user_id="u1").success
        assert runtime.call("seed", {"n": 2}, session_id="b", user_id="u2").success
        yield runtime


READS = {
    "own-and-missing": ({"keys": ["big", "mine", "nope", "user:x"]}, {"big": 20000, "mine": 2}),
    "another-session": ({"keys": ["mine"], "session_id": "a", "user_id": "u1"}, {"mine": 2}),
    "not-a-list": ({"keys": "big"}, {}),
    "nested-list": ({"keys": [["big"]]}, {}),
}


@pytest.mark.parametrize(("params", "expected"), READS.values(), ids=READS.keys())
def test_a_forged_state_read_reads_only_the_calls_own_state(
    rt: Runtime, params: dict, expected: dict
) -> None:
    result = rt.call("read", {"params": params}, session_id="b", user_id="u2")
    assert result.success, result.error
    assert result.output == expected


def test_a_value_is_sent_once_per_call_however_often_it_is_asked_for(rt: Runtime) -> None:
    """The host's work follows what the call reads: eight concurrent reads of a 20 kB value and
    20 more asking for it twice each bring its bytes once, the other requests refused."""
    result = rt.call("reread", {"again": 20}, session_id="b", user_id="u2")
    assert result.success, result.error
    assert result.output == {"sent": 20000, "refused": ["protocol"] * 27}
    again = rt.call("read", {"params": {"keys": ["big"]}}, session_id="b", user_id="u2")
    assert again.output == {"big": 20000}  # the next call is sent it again


DELTAS = {
    "one-value-too-large": ({"set": {"v": "z" * 60_000}, "deleted": []}, False),
    "two-values-too-many": ({"set": {"k1": "z" * 40_000, "k2": "z" * 40_000}, "deleted": []}, False),
    "deleting-what-is-not-there": (
        {"set": {"k1": "z" * 45_000, "k2": "z" * 45_000}, "deleted": ["nope"]},
        False,
    ),
    "set-and-deleted-twice": (
        {"set": {"k1": "z" * 45_000, "k2": "z" * 45_000}, "deleted": ["k1", "k1"]},
        True,
    ),
}


@pytest.mark.parametrize(("delta", "fits"), DELTAS.values(), ids=DELTAS.keys())
def test_a_forged_done_stays_within_the_state_limits(rt: Runtime, delta: dict, fits: bool) -> None:
    before = rt.call("read", {"params": {"keys": ["big", "mine"]}}, session_id="a", user_id="u1").output
    result = rt.call("forge", {"delta": delta}, session_id="a", user_id="u1")
    after = rt.call(
        "read", {"params": {"keys": ["big", "mine", "k1", "k2", "v"]}}, session_id="a", user_id="u1"
    )
    assert result.success is fits, result.error
    if fits:  # a key both set and deleted is deleted, as the host measured it
        assert set(after.output) == {"big", "mine", "k2"}, after.output
    else:
        assert result.error is not None and result.error.kind == "output_too_large", result.error
        assert after.output == before
