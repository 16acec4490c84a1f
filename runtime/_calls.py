"""One call's types, above the pool: a reader of this file knows the whole trip.

A call changes shape where its job changes, and only there:

1. ``ToolCall(tool, args, call_id)``: what a model turn (or a host) asks for. ``Runtime.call``
   takes its parts as arguments; ``Runtime.run_turn`` takes a list of them.
2. ``CallPlan``: what ``Runtime`` decided for it (its arguments checked, its ``steps``, ids,
   locks, wall time). The unit of work (``runtime/_unit_of_work.py``) carries a plan through the
   session store: lock, begin or replay, snapshot, run, commit or fail.
3. ``Invocation``: what the running call shares with the calls it makes (deadline, budgets, the
   session's events read once); made once the locks are held. ``steps(snapshot, invocation)``
   is the executor's work (``runtime/_executor.py``): callbacks, fakes, the tool.
4. The pool's seam: the executor sends each step as one job to a worker
   (``WorkerPool.run``) and gets back the worker's one reply (the pool's type, decoded there);
   the executor's ``Trail`` joins the steps' replies.
5. ``Outcome``: the run of all the steps, before anything is committed (output, state delta,
   logs, or the error).
6. ``ToolResult`` (``runtime/_results.py``): what the call produced once the unit of work
   committed it (or stored its failure), with the state after and the ids; also a stored
   call's replay.
7. ``TurnCall(call, result, later)``: a turn runner's answer to one ``ToolCall``: its result, or
   an ``ASYNCHRONOUS`` tool's pending answer and the future of its result.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runtime._state import StateDelta
from runtime.store import LOCK_TIMEOUT
from sandbox.common.errors import BudgetExceeded, ToolpenError

if TYPE_CHECKING:
    from runtime._http import RequestBudget
    from runtime._results import ToolResult
    from runtime._state import Scope


@dataclass(frozen=True)
class ToolCall:
    """One tool call a model turn selected: the tool, its arguments, and its call id (None: a new one)."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    call_id: str | None = None


PENDING_OUTPUT: dict[str, Any] = {"status": "pending"}
"""What a started asynchronous tool answers at once (the model is told the result comes later)."""


@dataclass(frozen=True)
class TurnCall:
    """One call of a model turn as the turn runner answered it: its result, or, for an
    ``ASYNCHRONOUS`` tool it started, its pending answer (``PENDING_OUTPUT``) and the future of its
    result (``later``: the same call id, committed when the tool ends)."""

    call: ToolCall
    result: ToolResult
    later: Future[ToolResult] | None = None


@dataclass(frozen=True)
class CallPlan:
    """One call as the runtime decided it: what runs, under which ids, and how it is recorded."""

    name: str
    args: dict[str, Any]
    steps: Steps
    context: dict[str, Any]
    call_id: str
    session_id: str | None
    user_id: str
    idempotent: bool
    wall_time: float
    tool_events: bool = True
    """Record the call as a function call and response; otherwise only a state change is recorded."""
    shared_scopes: frozenset[Scope] = frozenset()
    """The shared scopes (``app:``, ``user:``) the call may touch: locked from the read to the commit."""
    lock_wait: float = LOCK_TIMEOUT
    """Seconds the call may wait for its session's lock (then ``busy``); not part of ``wall_time``."""
    record_id: str | None = None
    """The key of the call's stored record when it differs from ``call_id``: a call that reuses
    the id of an earlier, different call (another tool or other arguments) is stored under
    ``call_id`` plus the digest of its tool and arguments (``runtime/_unit_of_work.py``)."""

    @property
    def record_key(self) -> str:
        """Where the call's record is stored: ``record_id``, else ``call_id``."""
        return self.record_id or self.call_id


MAX_RUNNING = 16
"""Nested calls of one top-level call that may run at the same time (each holds a worker)."""


@dataclass
class Invocation:
    """What a top-level call shares with the calls it makes: one deadline and its budgets."""

    deadline: float
    max_depth: int
    max_calls: int
    http_budget: RequestBudget
    calls: int = 0
    faked: bool = False
    read_events: Callable[[], list[dict[str, Any]]] | None = None
    """Reads the session's events (JSON) when a step's code first asks for them: from the store,
    or the context's function of a call without a session; None when they travel in the snapshot."""
    _events: list[dict[str, Any]] | None = None
    _running: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    """Nested calls started through ``async_tools`` run in threads of their own."""

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    @contextlib.contextmanager
    def nested_call(self) -> Iterator[None]:
        """One more nested call while the block runs; ``BudgetExceeded`` past ``max_calls`` in all,
        or past ``MAX_RUNNING`` running at once (``async_tools`` calls run side by side, each in a
        worker: refused rather than queued, since a queued call's caller may hold a slot)."""
        with self._lock:
            if self.calls >= self.max_calls:
                raise BudgetExceeded(f"more than {self.max_calls} tool calls in one call")
            if self._running >= MAX_RUNNING:
                raise BudgetExceeded(f"more than {MAX_RUNNING} tool calls of one call running at once")
            self.calls += 1
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1

    def events(self) -> list[dict[str, Any]]:
        """The session's events, read once for all the steps of the call."""
        with self._lock:
            if self._events is None:
                self._events = self.read_events() if self.read_events is not None else []
            return self._events


@dataclass
class Outcome:
    """The result of one run, before anything is committed."""

    success: bool
    output: Any = None
    error: ToolpenError | None = None
    state_delta: StateDelta = field(default_factory=StateDelta)
    logs: str = ""
    faked: bool = False
    replaced_by: str | None = None
    """The tool callback whose return value stood in for the tool's (or for its result)."""
    dropped_arguments: list[str] = field(default_factory=list)
    """Input keys a ``before_tool`` callback added that the tool does not declare (not passed)."""


Steps = Callable[[dict[str, Any], Invocation], Outcome]
"""The work of one call: from a context snapshot to an outcome."""
