"""`async_tools.<name>(...)`: started calls run in the host concurrently, in real workers, under both walls.

The slow tool asks a real HTTP server on 127.0.0.1 that holds each request for half a second and
records how many it holds at once: two started calls overlap when the server held two at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from runtime import EgressPolicy, Runtime
from tests.httpd import Handler, LocalServer, serve

HOLD = 0.5
GATHER_WAIT = 20.0  # seconds a held request waits for the others on a loaded machine


class Gauge:
    """How many requests the server is holding, and the most it held at once."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.now = 0
        self.most = 0
        self.spans: list[tuple[float, float]] = []
        self.hold_until: int | None = None
        """Hold each request until this many are held at once (or ``GATHER_WAIT`` passes), then ``HOLD`` more."""

    def hold(self, handler: Handler) -> None:
        started = time.monotonic()
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.lock.notify_all()
            if self.hold_until is not None:
                self.lock.wait_for(lambda: self.most >= self.hold_until, timeout=GATHER_WAIT)  # type: ignore[operator]
        time.sleep(HOLD)
        with self.lock:
            self.now -= 1
            self.spans.append((started, time.monotonic()))
        handler.send_json(200, {"n": handler.hit.query.get("n", ["?"])[0]})


@pytest.fixture
def gauge() -> Gauge:
    return Gauge()


@pytest.fixture
def server(gauge: Gauge) -> Iterator[LocalServer]:
    with serve({"/slow": gauge.hold}) as running:
        yield running


@pytest.fixture(params=["all", "process"])
def rt(request: pytest.FixtureRequest, server: LocalServer) -> Iterator[Runtime]:
    with Runtime(
        egress=EgressPolicy(allow_hosts=[server.allow]), walls=request.param, pool_size=3
    ) as runtime:
        runtime.add_tool(
            f'''
def fetch(n: int) -> dict:
    """Asks the slow service."""
    context.state[f"fetched_{{n}}"] = "yes"
    return ces_requests.get("{server.url}/slow", params={{"n": n}}).json()
'''
        )
        runtime.add_tool('def broken() -> None:\n    """Fails."""\n    raise LookupError("no such order")\n')
        yield runtime


def tool(body: str) -> str:
    lines = body.strip("\n").splitlines()
    return 'def probe() -> object:\n    """Probe."""\n' + "\n".join(f"    {line}" for line in lines) + "\n"


def test_two_started_calls_overlap(rt: Runtime, gauge: Gauge) -> None:
    rt.add_tool(
        tool(
            """
first = async_tools.fetch({"n": 1})
second = async_tools.fetch(n=2)
return [first()["n"], second().json()["n"], first.done()]
"""
        )
    )
    result = rt.call("probe", {}, session_id="s")
    assert result.success, result.error
    assert result.output == ["1", "2", True]
    assert gauge.most == 2, "the two started calls did not reach the service at the same time"
    first_start = min(start for start, _ in gauge.spans)
    last_end = max(end for _, end in gauge.spans)
    assert last_end - first_start < 2 * HOLD * 0.9  # overlapped: well under the sum of the two
    assert rt.store.require_session("s").state == {"fetched_1": "yes", "fetched_2": "yes"}


def test_the_tool_carries_on_while_a_started_call_runs(rt: Runtime, gauge: Gauge) -> None:
    rt.add_tool(
        tool(
            """
pending = async_tools.fetch({"n": 7})
before = len(tools.fetch({"n": 8}))
return [before, pending()["n"]]
"""
        )
    )
    result = rt.call("probe", {})
    assert result.success, result.error
    assert result.output == [1, "7"]
    assert gauge.most == 2  # the synchronous call ran while the started one was held


def test_a_failure_is_raised_when_the_result_is_asked_for(rt: Runtime) -> None:
    rt.add_tool(
        tool(
            """
failing = async_tools.broken({})
fine = async_tools.fetch({"n": 3})
reached = "after start"
try:
    failing()
except StatusError as error:
    return [reached, error.status_code, error.kind, "no such order" in str(error), fine()["n"]]
"""
        )
    )
    result = rt.call("probe", {})
    assert result.success, result.error
    assert result.output == ["after start", 500, "tool_error", True, "3"]


def test_a_call_never_asked_for_finishes_before_the_tool_and_keeps_its_state(
    rt: Runtime, gauge: Gauge
) -> None:
    rt.add_tool(
        tool(
            """
async_tools.fetch({"n": 4})
async_tools.broken({})
return "left them"
"""
        )
    )
    result = rt.call("probe", {}, session_id="s")
    assert result.success, result.error
    assert len(gauge.spans) == 1  # answered before the call returned
    assert result.state == {"fetched_4": "yes"}


def test_started_calls_each_follow_their_own_path(rt: Runtime) -> None:
    """Two calls side by side are not a cycle; a call reaching its own caller still is."""
    rt.add_tool('def leaf() -> str:\n    """Leaf."""\n    return "leaf"\n')
    rt.add_tool('def middle() -> str:\n    """Calls leaf."""\n    return tools.leaf({})\n')
    rt.add_tool(
        'def loops() -> object:\n    """Starts itself."""\n'
        "    try:\n        return async_tools.loops({})()\n"
        "    except StatusError as error:\n        return error.message\n"
    )
    rt.add_tool(
        tool(
            """
started = [async_tools.middle({}), async_tools.leaf({}), async_tools.middle({})]
return [f() for f in started]
"""
        )
    )
    result = rt.call("probe", {})
    assert result.success, result.error
    assert result.output == ["leaf", "leaf", "leaf"]
    looped = rt.call("loops", {})
    assert looped.success, looped.error
    assert "cycle: loops -> loops" in looped.output


def test_a_worker_saying_done_before_its_answers_breaks_the_protocol(server: LocalServer) -> None:
    """Code past the language wall reaches the worker's RPC client and says done early."""
    with Runtime(egress=EgressPolicy(allow_hosts=[server.allow]), walls="process") as rt:
        rt.add_tool(
            f'''
def fetch(n: int) -> dict:
    """Asks the slow service."""
    return ces_requests.get("{server.url}/slow", params={{"n": n}}).json()
'''
        )
        rt.add_tool(
            tool(
                """
cells = [cell.cell_contents for cell in async_tools._start.__closure__]
client = next(cell.__self__ for cell in cells if hasattr(cell, "__self__"))
client._send("tools", "call", {"name": "fetch", "args": {"n": 1}, "state": {}}, concurrent=True)
client._unanswered.clear()
return "early"
"""
            )
        )
        result = rt.call("probe", {})
        assert result.error is not None and result.error.kind == "protocol"
        assert "done before the answers" in result.error.message


def test_calls_running_at_once_are_bounded(rt: Runtime, gauge: Gauge) -> None:
    """Four started calls that each start four: twenty would run at once, sixteen may.

    The service holds the fetches until twelve are held, so that none ends before every fan has
    started its four, however slowly a loaded machine forks their workers."""
    gauge.hold_until = 16 - 4
    rt.add_tool(
        'def fan() -> list:\n    """Starts four fetches."""\n'
        "    started = [async_tools.fetch({'n': n}) for n in range(4)]\n"
        "    outcomes = []\n"
        "    for future in started:\n"
        "        try:\n            outcomes.append(future()['n'])\n"
        "        except StatusError as error:\n            outcomes.append(error.message)\n"
        "    return outcomes\n"
    )
    rt.add_tool(tool("return [future() for future in [async_tools.fan({}) for _ in range(4)]]"))
    result = rt.call("probe", {})
    assert result.success, result.error
    outcomes = [outcome for fan in result.output for outcome in fan]
    refused = [outcome for outcome in outcomes if "running at once" in outcome]
    assert refused, outcomes
    assert len(gauge.spans) == len(outcomes) - len(refused)  # the others reached the service
    assert gauge.most <= 16 - 4  # the four fans hold four of the sixteen
