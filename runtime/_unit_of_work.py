"""One call's unit of work: lock the session, begin (or replay), snapshot, run, commit or fail.

``Runtime`` decides what a call runs (a tool with its callbacks, or a host's agent callbacks)
and hands over a :class:`CallPlan`; :class:`UnitOfWork` carries it through the session store.
The state delta and the call's events commit atomically, only when the run succeeds; a retry
of a finished call replays its stored result, and a call that started but stored no result is
not run again unless it is idempotent. Only the same call replays: a call that reuses the id of
an earlier one with another tool or other arguments (models behind proxies and local servers
repeat ids such as ``call_0`` across turns) runs as a new call, recorded under the id plus the
digest of its tool and arguments (``CallPlan.record_id``), and both records are kept. Without a
session the call is ephemeral: the context's state is the state and nothing is stored.

A call that may touch ``app:`` or ``user:`` keys (``CallPlan.shared_scopes``, read from the
code by ``runtime/_shared_scopes.py``) also holds those scopes' locks, after the session's, from
the read to the commit: its snapshot has their latest values and no concurrent update is lost.
If a call writes a shared scope it did not lock (a tool or callback registered or replaced
during the call), the commit takes that lock late and stores the call only if the scope still
holds what the call read; otherwise the call fails with ``conflict`` and stores nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from runtime._calls import CallPlan, Invocation, Outcome
from runtime._results import ToolResult
from runtime._state import SHARED_SCOPES, Scope, scope_of, without_temp_keys
from runtime._state_view import StateView
from sandbox.common.errors import Conflict, Timeout, ToolpenError, UnknownOutcome

if TYPE_CHECKING:
    from runtime._http import HttpBroker
    from runtime._session import Event, Session
    from runtime.store import Store

MAX_TOGETHER = 8
"""Calls of one model turn that run at the same time (``run_together``); more wait for a thread."""

LATE_LOCK_TIMEOUT = 5.0
"""Seconds a commit waits for the lock of a shared scope the call did not lock ahead (out of
the usual order, so a short wait: a ``conflict`` rather than a deadlock)."""


def new_id(prefix: str) -> str:
    """A fresh id such as ``call_3f2a...`` (20 random hex digits; a uuid4 object costs 4x more)."""
    return f"{prefix}_{os.urandom(10).hex()}"


class UnitOfWork:
    """Runs call plans against one store, for one app, agent and set of per-call budgets."""

    def __init__(
        self,
        store: Store,
        broker: HttpBroker,
        *,
        app_name: str,
        agent_name: str,
        max_depth: int,
        max_calls: int,
        initial_state: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.initial_state = dict(initial_state or {})
        """A new session's state (and an ephemeral call's) before the context's ``state`` is laid over it."""
        self.broker = broker
        self.app_name = app_name
        self.agent_name = agent_name
        self.max_depth = max_depth
        self.max_calls = max_calls
        self._detached: set[threading.Thread] = set()

    def run(self, plan: CallPlan) -> ToolResult:
        """Run ``plan`` once (or replay it); never raises for faults of the tool or the store.

        Waiting for the locks has its own limit (``plan.lock_wait``, then ``busy``, stored
        nowhere, so a retry can run); the call's wall time starts once it holds them."""
        if plan.session_id is None:
            return self._run_ephemeral(plan, self._invocation(plan))
        try:
            with self._locks(plan, plan.shared_scopes):
                invocation = self._invocation(plan)  # loading the session is the call's time too
                begun = self._begin(plan)
                if isinstance(begun, ToolResult):
                    return begun
                plan, session = begun
                return self._run_and_commit(plan, session, invocation)
        except ToolpenError as error:
            return _failed(plan, error)

    def run_together(self, plans: Sequence[CallPlan]) -> list[ToolResult]:
        """Run the calls one model turn selected at once, as CES's ``PARALLEL`` mode does.

        They share the session (and context) of the first plan. Under one hold of its locks,
        every call begins, all run concurrently from the same snapshot (none sees another's
        changes), then each commits in the given order: for a key several calls set, the last
        one's value is the one kept. A call that fails stores its failure; the others commit.
        """
        if not plans:
            return []
        first = plans[0]
        if first.session_id is None:
            return _concurrently(
                [partial(self._run_ephemeral, plan, self._invocation(plan)) for plan in plans]
            )
        results: list[ToolResult | None] = [None] * len(plans)
        scopes = frozenset().union(*(plan.shared_scopes for plan in plans))
        try:
            with self._locks(first, scopes):
                begun: list[tuple[int, CallPlan, dict[str, Any], Invocation]] = []
                session: Session | None = None
                for index, plan in enumerate(plans):
                    invocation = self._invocation(plan)
                    try:
                        started = self._begin(plan)
                    except ToolpenError as error:
                        results[index] = _failed(plan, error)
                        continue
                    if isinstance(started, ToolResult):
                        results[index] = started
                    else:
                        plan, session = started
                        begun.append((index, plan, self._session_snapshot(plan, session), invocation))
                outcomes = _concurrently(
                    [partial(plan.steps, snapshot, invocation) for _, plan, snapshot, invocation in begun]
                )
                for (index, plan, snapshot, invocation), outcome in zip(begun, outcomes, strict=True):
                    assert session is not None
                    result = self._conclude(plan, session, snapshot, outcome, invocation.deadline)
                    if result.success:  # the next commit applies to the state this one left
                        session = session.model_copy(update={"state": result.state, "state_sizes": None})
                    results[index] = result
        except ToolpenError as error:
            return [result or _failed(plan, error) for plan, result in zip(plans, results, strict=True)]
        assert all(result is not None for result in results)
        return cast(list[ToolResult], results)

    def start(self, plan: CallPlan) -> Future[ToolResult]:
        """Begin ``plan`` now and run it in a thread without holding its session, as CES runs an
        ``ASYNCHRONOUS`` tool: the session carries on meanwhile.

        The call begins (or replays) and reads its snapshot under the session's locks; it
        commits under them again when it ends, onto the state the session has then (for a key
        another call set meanwhile, this call's value is kept). The future's result is the call's.
        """
        future: Future[ToolResult] = Future()
        if plan.session_id is None:
            self._detach(future, partial(self._run_ephemeral, plan, self._invocation(plan)))
            return future
        try:
            with self._locks(plan, plan.shared_scopes):
                begun = self._begin(plan)
                if isinstance(begun, ToolResult):
                    future.set_result(begun)
                    return future
                plan, session = begun
                snapshot = self._session_snapshot(plan, session)
        except ToolpenError as error:
            future.set_result(_failed(plan, error))
            return future
        self._detach(future, partial(self._finish_detached, plan, snapshot, self._invocation(plan)))
        return future

    def wait_detached(self, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) for the calls ``start`` left running."""
        deadline = time.monotonic() + timeout
        for thread in list(self._detached):
            thread.join(max(0.0, deadline - time.monotonic()))

    def _finish_detached(
        self, plan: CallPlan, snapshot: dict[str, Any], invocation: Invocation
    ) -> ToolResult:
        outcome = plan.steps(snapshot, invocation)
        assert plan.session_id is not None
        try:
            with self._locks(plan, plan.shared_scopes):
                latest = self.store.require_session(plan.session_id, events=False)
                return self._conclude(plan, latest, snapshot, outcome)
        except ToolpenError as error:  # its result could not be stored: a retry meets unknown_outcome
            return _failed(plan, error)

    def _detach(self, future: Future[ToolResult], work: Callable[[], ToolResult]) -> None:
        def run() -> None:
            try:
                future.set_result(work())
            except BaseException as error:  # noqa: BLE001 (a fault of ours reaches the future's reader)
                future.set_exception(error)
            finally:
                self._detached.discard(threading.current_thread())

        thread = threading.Thread(target=run, name="toolpen-async-call", daemon=True)
        self._detached.add(thread)
        thread.start()

    def _locks(self, plan: CallPlan, scopes: frozenset[Scope]) -> ExitStack:
        """The session's lock, then those of ``scopes``, held until the returned stack closes."""
        assert plan.session_id is not None
        stack = ExitStack()
        with stack:
            stack.enter_context(self.store.lock(plan.session_id, plan.lock_wait))
            stack.enter_context(self.store.lock_scopes(self.app_name, plan.user_id, scopes))
            return stack.pop_all()

    def _begin(self, plan: CallPlan) -> tuple[CallPlan, Session] | ToolResult:
        """Under the locks: the session (created from the context's state if new) and the call's
        start record, with the plan as recorded (its ``record_id`` set if it reuses the id of a
        different call); a finished earlier run of the same call is its stored result instead."""
        assert plan.session_id is not None
        session = self.store.get_or_create_session(
            self.app_name, plan.user_id, plan.session_id, self._given_state(plan), events=False
        )
        session_id = plan.session_id
        earlier = self.store.begin_call(session_id, plan.call_id, plan.name, plan.args)
        if earlier is not None:
            fingerprint = _fingerprint(plan.name, plan.args)
            if _fingerprint(earlier.tool, earlier.args) != fingerprint:
                plan = replace(plan, record_id=f"{plan.call_id}~{fingerprint[:24]}")
                earlier = self.store.begin_call(session_id, plan.record_key, plan.name, plan.args)
        if earlier is not None and earlier.finished:
            return replace(ToolResult.from_record(earlier, session.state), call_id=plan.call_id)
        if earlier is not None and not plan.idempotent:
            raise UnknownOutcome(
                f"call {plan.call_id!r} of {plan.name!r} started earlier but stored no result; "
                "it may have had effects, so it is not run again"
            )
        return plan, session

    def _invocation(self, plan: CallPlan) -> Invocation:
        """The call's deadline and budgets, from now: waiting for the locks is not the call's time.

        A session call's events are read from the store only if its code asks for them (under
        the session's lock, so they are the ones stored before the call); a call without a
        session reads them the same way from its context's ``events`` when that is a function.
        """
        session_id = plan.session_id
        given = plan.context.get("events")
        return Invocation(
            deadline=time.monotonic() + plan.wall_time,
            max_depth=self.max_depth,
            max_calls=self.max_calls,
            http_budget=self.broker.new_budget(),
            read_events=(given if callable(given) else None)
            if session_id is None
            else lambda: [event.to_dict() for event in self.store.get_events(session_id)],
        )

    def _given_state(self, plan: CallPlan) -> dict[str, Any]:
        return {**self.initial_state, **(plan.context.get("state") or {})}

    def _run_ephemeral(self, plan: CallPlan, invocation: Invocation) -> ToolResult:
        context = plan.context
        state = self._given_state(plan)
        session_id = context.get("session_id") or ""
        given = context.get("events")
        events = None if callable(given) else list(given or [])  # a function: read on first use
        snapshot = self._snapshot(plan, StateView(state), session_id, events)
        return _result(plan.steps(snapshot, invocation), state, plan.call_id, None)

    def _run_and_commit(self, plan: CallPlan, session: Session, invocation: Invocation) -> ToolResult:
        snapshot = self._session_snapshot(plan, session)
        return self._conclude(plan, session, snapshot, plan.steps(snapshot, invocation), invocation.deadline)

    def _session_snapshot(self, plan: CallPlan, session: Session) -> dict[str, Any]:
        """The snapshot of a session call: the session's state plus the context's ``temp:`` keys;
        the context's ``events`` when it gives some (a host's own history), else none (read from
        the store on first use)."""
        given = plan.context.get("state") or {}
        temp = {key: value for key, value in given.items() if key.startswith("temp:")}
        events = plan.context.get("events")
        state = StateView({**session.state, **temp}, session.state_sizes)
        return self._snapshot(plan, state, session.id, _given_events(events))

    def _conclude(
        self,
        plan: CallPlan,
        session: Session,
        snapshot: dict[str, Any],
        outcome: Outcome,
        deadline: float | None = None,
    ) -> ToolResult:
        """Under the locks: store the call's failure, or commit its delta onto ``session``'s state
        and its events; a call whose ``deadline`` (``time.monotonic()``) passed before its commit
        fails with ``timeout`` and stores nothing but its failure (a detached call has none: it
        commits when it ends, after the session's other calls)."""
        result = _result(outcome, session.state, plan.call_id, session.id)
        if not outcome.success:
            self.store.fail_call(session.id, plan.record_key, result.stored())
            return result
        new_events = self._events(plan, outcome, snapshot["agent_name"], snapshot["invocation_id"])
        try:
            if deadline is not None and time.monotonic() > deadline:
                raise Timeout(
                    f"the call ran out of its {plan.wall_time:g}s wall time before its changes were "
                    "stored (the host's loading, checks and commit count too); nothing was stored"
                )
            self._commit(plan, session, outcome, new_events, result.stored(), deadline)
        except ToolpenError as error:
            if deadline is not None and time.monotonic() > deadline and not isinstance(error, Timeout):
                error = Timeout(
                    f"the call ran out of its {plan.wall_time:g}s wall time while its changes were being "
                    f"stored ({error.message}); nothing was stored"
                )
            failed = ToolResult(
                False,
                error=error,
                logs=outcome.logs,
                state=session.state,
                call_id=plan.call_id,
                session_id=session.id,
            )
            self.store.fail_call(session.id, plan.record_key, failed.stored())
            return failed
        result.state = without_temp_keys(result.state)
        return result

    def _commit(
        self,
        plan: CallPlan,
        session: Session,
        outcome: Outcome,
        events: list[Event],
        stored: dict[str, Any],
        deadline: float | None,
    ) -> None:
        """Commit the call; a shared scope it writes but did not lock is locked now and must
        still hold what the call read (else ``Conflict``)."""
        delta = outcome.state_delta
        missed = (delta.scopes() & SHARED_SCOPES) - plan.shared_scopes
        with ExitStack() as held:
            if missed:
                names = " and ".join(f"{scope}:" for scope in sorted(missed))
                try:
                    held.enter_context(
                        self.store.lock_scopes(self.app_name, plan.user_id, missed, LATE_LOCK_TIMEOUT)
                    )
                except Timeout:
                    raise Conflict(
                        f"the call wrote {names} keys its code does not name, and another call held "
                        "them; nothing was stored"
                    ) from None
                latest = self.store.require_session(session.id, events=False).state
                if any(_part(latest, scope) != _part(session.state, scope) for scope in missed):
                    raise Conflict(
                        f"the call wrote {names} keys its code does not name, and another call changed "
                        "them meanwhile; nothing was stored"
                    )
            self.store.commit_call(session.id, plan.record_key, delta, events, stored, deadline)

    def _events(self, plan: CallPlan, outcome: Outcome, author: str, invocation_id: str) -> list[Event]:
        """The events a successful call adds to its session."""
        # the session models (pydantic) load with the store that holds them, not with the call
        # path: an ephemeral call never needs them
        from runtime._session import call_events, state_change_event

        delta = outcome.state_delta
        if plan.tool_events:
            return call_events(
                call_id=plan.call_id,
                tool=plan.name,
                args=plan.args,
                response={"result": outcome.output},
                delta=delta,
                author=author,
                invocation_id=invocation_id,
            )
        return [state_change_event(delta, author, invocation_id)] if delta.without_temp() else []

    def _snapshot(
        self, plan: CallPlan, state: StateView, session_id: str, events: list[Any] | None = None
    ) -> dict[str, Any]:
        """The context a call's code sees (read-only, apart from its state). A session call's
        has no ``events``: the worker asks the host for them on first use (``context.events``)."""
        context = plan.context
        snapshot = {
            "state": state,
            "user_content": context.get("user_content") or {"role": "user", "parts": []},
            "function_call_id": plan.call_id,
            "session_id": session_id,
            "invocation_id": context.get("invocation_id") or new_id("inv"),
            "agent_name": context.get("agent_name") or self.agent_name,
        }
        if events is not None:
            snapshot["events"] = events
        return snapshot


def _fingerprint(tool: str, args: dict[str, Any]) -> str:
    """The digest of a call's tool and arguments (JSON with sorted keys): equal for the same call."""
    text = json.dumps([tool, args], sort_keys=True, separators=(",", ":"), default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def _given_events(events: Any) -> list[Any] | None:
    """A context's ``events`` as a snapshot carries them; None when it gives none."""
    return list(events) if isinstance(events, list) else None


def _part(state: dict[str, Any], scope: Scope) -> dict[str, Any]:
    """The keys of ``state`` in ``scope``."""
    return {key: value for key, value in state.items() if scope_of(key) is scope}


def _failed(plan: CallPlan, error: ToolpenError) -> ToolResult:
    return ToolResult(False, error=error, call_id=plan.call_id, session_id=plan.session_id)


def _concurrently(work: list[Callable[[], Any]]) -> list[Any]:
    """Each of ``work`` in a thread of its own (at most ``MAX_TOGETHER`` at once); results in order."""
    if len(work) <= 1:
        return [item() for item in work]
    with ThreadPoolExecutor(
        max_workers=min(len(work), MAX_TOGETHER), thread_name_prefix="toolpen-call"
    ) as pool:
        return list(pool.map(lambda item: item(), work))


def _result(outcome: Outcome, state: dict[str, Any], call_id: str, session_id: str | None) -> ToolResult:
    if not outcome.success:
        return ToolResult(
            False, None, outcome.error, outcome.logs, state=state, call_id=call_id, session_id=session_id
        )
    delta = outcome.state_delta
    return ToolResult(
        True,
        outcome.output,
        None,
        outcome.logs,
        delta.to_dict(),
        delta.apply_to(state),
        call_id,
        session_id,
        faked=outcome.faked,
        replaced_by=outcome.replaced_by,
        dropped_arguments=outcome.dropped_arguments,
    )
