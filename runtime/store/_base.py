"""The interface every session store implements, and the checks they all share.

A call goes through a store like this (the executor's side)::

    with store.lock(session_id):                       # serializes the session's calls
        session = store.get_or_create_session(app, user, session_id, events=False)  # state only
        earlier = store.begin_call(session_id, call_id, tool, args)
        if earlier is not None:                        # a retry: never run twice
            ...  # earlier.result if earlier.finished, else an unknown outcome
        ...  # run the tool on a snapshot of session.state
        store.commit_call(session_id, call_id, delta, events, result)   # or fail_call(...)

The lock must be held from the read to the commit: that is what prevents lost updates.
``commit_call`` applies the delta to the app, user and session scopes, appends the events
and stores the call's result in one transaction; a failing commit changes nothing.
Keys ``app:*`` and ``user:*`` are shared by many sessions: a call that may touch them also holds
``lock_scopes(app, user, scopes)`` (taken after the session's lock, the user's before the app's)
from the read to the commit, so concurrent calls of different sessions lose no update there
either. A call that touches only its session's keys takes no scope lock.

Public methods validate their input here, once; a store implements the ``_`` primitives and
the read methods, and may rely on receiving JSON-safe values.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from runtime._session import CallRecord, CallStatus, Event, Session, SessionSummary
from runtime._state import Scope, StateDelta, encode_json
from runtime.store import LOCK_TIMEOUT
from runtime.store._migrations import SchemaVersion
from runtime.store._retention import sweep_interval
from sandbox.common.errors import Busy, InvalidArguments, NotFound, ToolpenError


def session_taken(session_id: str | None) -> InvalidArguments:
    """A session id another app or user holds in this store, with the two ways out."""
    return InvalidArguments(
        f"session {session_id!r} belongs to another app or user: a session keeps the app and user "
        "that created it; give this run another session id (toolpen: --session NAME) or keep "
        "this app's sessions in a store of its own (toolpen: --store URL, such as "
        "sqlite:///other.db or memory://)"
    )


@dataclass(frozen=True)
class FinishedCall:
    """A call's end as a store writes it (inputs checked): its result and status, and for a
    success the state delta (no ``temp:`` keys) and the events, in the same transaction."""

    session_id: str
    call_id: str
    status: CallStatus
    result: dict[str, Any]
    result_json: str
    """``result`` as JSON text, encoded once when it was checked (a result holds the whole state)."""
    now: float
    delta: StateDelta = field(default_factory=StateDelta)
    events_json: list[str] = field(default_factory=list)
    """The events as JSON text, encoded once when they were checked."""
    deadline: float | None = None
    """The call's deadline (``time.monotonic()``): a commit not done by then changes nothing."""

    def time_left(self) -> float | None:
        """Seconds until the deadline (at least a millisecond), or None without one."""
        return None if self.deadline is None else max(self.deadline - time.monotonic(), 0.001)


StateOwner = tuple[str, str, str]
"""Which row holds a scope's state: (app_name, user_id, session_id), '' where not used."""


def state_owner(scope: Scope, app_name: str, user_id: str, session_id: str) -> StateOwner:
    """The row that holds ``scope``'s keys for this session (``temp:`` is never stored)."""
    if scope is Scope.APP:
        return (app_name, "", "")
    if scope is Scope.USER:
        return (app_name, user_id, "")
    if scope is Scope.SESSION:
        return (app_name, user_id, session_id)
    raise ValueError("temp: keys are never stored")


STORED_SCOPES = (Scope.APP, Scope.USER, Scope.SESSION)

SCOPE_LOCK_ORDER = (Scope.USER, Scope.APP)
"""The order shared-scope locks are taken in, after the session's: no two calls wait in a circle."""


def scope_lock_name(owner: StateOwner) -> str:
    """A shared scope's lock name, unique per (app) and per (app, user): ``["app", "user"]``."""
    return json.dumps(list(owner[:2]), ensure_ascii=False, separators=(",", ":"))


def session_label(session_id: str) -> str:
    """How messages name a session's lock."""
    return f"session {session_id!r}"


def scope_label(owner: StateOwner) -> str:
    """How messages name a shared scope's lock."""
    app_name, user_id, _ = owner
    return (
        f"the user: keys of user {user_id!r} of app {app_name!r}"
        if user_id
        else f"the app: keys of app {app_name!r}"
    )


def state_owners(app_name: str, user_id: str, session_id: str) -> list[StateOwner]:
    """The rows a session's visible state merges, in merge order: app, user, session."""
    return [state_owner(scope, app_name, user_id, session_id) for scope in STORED_SCOPES]


def scoped_parts(
    delta: StateDelta, app_name: str, user_id: str, session_id: str
) -> Iterator[tuple[StateOwner, StateDelta]]:
    """The non-empty parts of ``delta``, each with the row of the scope it is written to."""
    for scope in STORED_SCOPES:
        part = delta.only(scope)
        if part:
            yield state_owner(scope, app_name, user_id, session_id), part


@dataclass(frozen=True)
class StoreSize:
    """How much a store takes: ``bytes`` as ``measured`` says (a file, tables, keys, JSON text)."""

    bytes: int
    measured: str


def _require_name(value: object, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidArguments(f"{what} must be a non-empty string")
    return value


class Store(ABC):
    """Sessions, their state in three scopes, their events and call records."""

    url: str
    schema: SchemaVersion | None = None
    """The schema version opening found and left (None for a store without a schema)."""
    idle_timeout: float | None = None
    """Seconds after its last update that a session expires (None: never). An expired session
    reads as absent (and is deleted then); the store also sweeps expired sessions itself, at most
    every ``sweep_interval``; Redis lets its keys expire by TTL. App and user state stay."""
    _swept_at = 0.0

    # -- sessions -------------------------------------------------------------------------

    def create_session(
        self,
        app_name: str,
        user_id: str,
        session_id: str | None = None,
        state: dict[str, Any] | None = None,
    ) -> Session:
        """A new session; ``state`` keys go to their scopes (``temp:`` keys are dropped).

        Raises ``InvalidArguments`` if ``session_id`` is already taken.
        """
        created = self._create(app_name, user_id, session_id, state)
        if created is None:
            raise InvalidArguments(f"session {session_id!r} already exists")
        return created

    def get_or_create_session(
        self,
        app_name: str,
        user_id: str,
        session_id: str | None = None,
        state: dict[str, Any] | None = None,
        *,
        events: bool = True,
    ) -> Session:
        """The session ``session_id`` if it exists (it must belong to app/user), else a new one;
        ``events=False``: as ``get_session``'s."""
        session = self.get_session(session_id, events=events) if session_id is not None else None
        if session is None:
            # None again: another thread or process created it meanwhile
            session = self._create(app_name, user_id, session_id, state) or self.require_session(
                session_id or "", events=events
            )
        if (session.app_name, session.user_id) != (app_name, user_id):
            raise session_taken(session_id)
        return session

    def _create(
        self, app_name: str, user_id: str, session_id: str | None, state: dict[str, Any] | None
    ) -> Session | None:
        """A new session, or None if ``session_id`` is taken."""
        session_id = _require_name(session_id or uuid.uuid4().hex, "session_id")
        delta = StateDelta.from_dict({"set": state or {}}).without_temp()
        delta.check_json()
        owner = (_require_name(app_name, "app_name"), _require_name(user_id, "user_id"))
        self._sweep_if_due()
        if not self._insert_session(session_id, *owner, delta, time.time()):
            return None
        return self.require_session(session_id, events=False)  # a new session has none

    event_reads = 0
    """How many times this store read a session's events (a session call that never looks at
    them reads none, whatever the session's length)."""

    def get_session(self, session_id: str, *, events: bool = True) -> Session | None:
        """The session with its merged state (app + user + session keys) and events, or None.

        ``events=False`` leaves the events unread (an empty list): what a call needs, in a time
        that does not grow with the session's length.
        """
        if events:
            self.event_reads += 1
        session = self._get_session(session_id, events)
        if session is not None and self.idle_timeout is not None:
            before = time.time() - self.idle_timeout
            if session.last_update_time < before:
                self._delete_session(session_id, idle_before=before)
                return None
        return session

    def get_events(self, session_id: str) -> list[Event]:
        """The session's events, oldest first (none for an unknown session)."""
        self.event_reads += 1
        return self._get_events(session_id)

    def require_session(self, session_id: str, *, events: bool = True) -> Session:
        """The session, or ``NotFound``."""
        session = self.get_session(session_id, events=events)
        if session is None:
            raise NotFound(f"session {session_id!r} not found")
        return session

    @abstractmethod
    def list_sessions(self, app_name: str | None = None, user_id: str | None = None) -> list[SessionSummary]:
        """Summaries of the sessions, optionally of one app and/or user, most recent first."""

    def delete_session(self, session_id: str) -> bool:
        """Delete a session, its own state, events and call records; False if it did not exist.

        App and user state stay: other sessions share them.
        """
        return self._delete_session(session_id, idle_before=None)

    # -- retention ------------------------------------------------------------------------

    def prune(self, idle: float | None = None, *, dry_run: bool = False) -> list[str]:
        """Delete the sessions not updated for ``idle`` seconds (default: ``idle_timeout``) and
        return their ids; ``dry_run`` only lists them. A session updated meanwhile is kept.
        Raises ``InvalidArguments`` when no idle time is given and the store has none."""
        idle = self.idle_timeout if idle is None else idle
        if idle is None or idle <= 0:
            raise InvalidArguments(
                "give an idle time (toolpen session prune --idle 30d), or open the store with one "
                "(a store URL ending in ?idle_timeout=30d)"
            )
        before = time.time() - idle
        idle_ids = self._idle_sessions(before)
        if dry_run:
            return idle_ids
        return [session_id for session_id in idle_ids if self._delete_session(session_id, idle_before=before)]

    def _sweep_if_due(self) -> None:
        """Prune expired sessions when ``idle_timeout`` is set and the last sweep is old enough;
        a failing sweep is logged, never the caller's failure."""
        if self.idle_timeout is None:
            return
        now = time.monotonic()
        if now - self._swept_at < sweep_interval(self.idle_timeout):
            return
        self._swept_at = now
        try:
            self.prune()
        except ToolpenError as error:
            logging.getLogger("toolpen.store").warning("sweeping expired sessions failed: %s", error.message)

    @abstractmethod
    def size(self) -> StoreSize:
        """What the store takes, as its kind measures it (for ``toolpen session list``)."""

    # -- locking --------------------------------------------------------------------------

    @abstractmethod
    def lock(self, session_id: str, timeout: float = LOCK_TIMEOUT) -> AbstractContextManager[None]:
        """Hold the session's lock for the block: one holder at a time, across threads and,
        for shared stores, across processes. Not reentrant. Raises ``Busy`` after
        ``timeout`` seconds of waiting."""

    @contextmanager
    def lock_scopes(
        self, app_name: str, user_id: str, scopes: Collection[Scope], timeout: float = LOCK_TIMEOUT
    ) -> Iterator[None]:
        """Hold the locks of the shared scopes among ``scopes`` (``user:`` keys of (app, user),
        ``app:`` keys of app) for the block, in ``SCOPE_LOCK_ORDER``; other scopes are ignored.
        Like ``lock``: across threads and processes, not reentrant, ``Timeout`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        with ExitStack() as held:
            for scope in SCOPE_LOCK_ORDER:
                if scope in scopes:
                    owner = state_owner(scope, app_name, user_id, "")
                    held.enter_context(self._lock_scope(owner, max(deadline - time.monotonic(), 0.001)))
            yield

    @abstractmethod
    def _lock_scope(self, owner: StateOwner, timeout: float) -> AbstractContextManager[None]:
        """Hold the lock of one shared scope's row (``lock``'s rules; a namespace of its own)."""

    # -- calls ----------------------------------------------------------------------------

    def begin_call(self, session_id: str, call_id: str, tool: str, args: dict[str, Any]) -> CallRecord | None:
        """Record that a call started and return None; or return the existing record untouched.

        The record is stored at once (its own transaction), so a run that dies before its
        result is stored leaves a ``started`` record: an unknown outcome for a retry.
        """
        _require_name(call_id, "call_id")
        encode_json(args, "the call's arguments")
        return self._begin_call(CallRecord(session_id=session_id, call_id=call_id, tool=tool, args=args))

    def commit_call(
        self,
        session_id: str,
        call_id: str,
        delta: StateDelta,
        events: list[Event],
        result: dict[str, Any],
        deadline: float | None = None,
    ) -> None:
        """Atomically apply ``delta`` (minus ``temp:`` keys), append ``events``, store ``result``
        and mark the call succeeded, and update the session's last update time.

        Raises ``InvalidState`` for a value that is not JSON, ``NotFound`` for an unknown
        session, ``ToolpenError`` if the call already has a result, ``StoreError`` if a SQL
        store's transaction (waiting for its locks included) is not done by ``deadline`` (a
        ``time.monotonic()``); then nothing changes.
        """
        delta = delta.without_temp()
        delta.check_json()
        events_json = [encode_json(event.to_dict(), "an event") for event in events]
        text = encode_json(result, "the call's result")
        self._commit_call(
            FinishedCall(
                session_id, call_id, "succeeded", result, text, time.time(), delta, events_json, deadline
            )
        )
        self._sweep_if_due()

    def fail_call(self, session_id: str, call_id: str, result: dict[str, Any]) -> None:
        """Store a failed call's result; the state and events do not change."""
        text = encode_json(result, "the call's result")
        self._fail_call(FinishedCall(session_id, call_id, "failed", result, text, time.time()))

    @abstractmethod
    def get_call(self, session_id: str, call_id: str) -> CallRecord | None:
        """The call record of (session_id, call_id), or None."""

    # -- lifetime -------------------------------------------------------------------------

    @abstractmethod
    def close(self) -> None:
        """Release the store's resources (connections)."""

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- primitives a store implements (inputs already validated) -------------------------

    @abstractmethod
    def _get_session(self, session_id: str, events: bool) -> Session | None:
        """The session, with its events only if ``events``; None if there is none."""

    @abstractmethod
    def _get_events(self, session_id: str) -> list[Event]:
        """The session's events in order."""

    @abstractmethod
    def _delete_session(self, session_id: str, idle_before: float | None) -> bool:
        """Delete the session (with ``idle_before``: only if its last update is older); False if
        nothing was deleted."""

    @abstractmethod
    def _idle_sessions(self, before: float) -> list[str]:
        """The ids of the sessions last updated before ``before`` (a time.time())."""

    @abstractmethod
    def _insert_session(
        self, session_id: str, app_name: str, user_id: str, delta: StateDelta, now: float
    ) -> bool:
        """Insert a session and apply ``delta`` to its scopes; False if the id is taken."""

    @abstractmethod
    def _begin_call(self, record: CallRecord) -> CallRecord | None:
        """Insert ``record`` unless (session_id, call_id) exists; return the existing one."""

    @abstractmethod
    def _commit_call(self, call: FinishedCall) -> None:
        """One transaction: the delta, the events, the result (status ``succeeded``)."""

    @abstractmethod
    def _fail_call(self, call: FinishedCall) -> None:
        """Store the result with status ``failed``."""


def already_finished(session_id: str, call_id: str) -> ToolpenError:
    """The error for storing a second result for one call."""
    return ToolpenError(f"call {call_id!r} of session {session_id!r} already has a result")


def never_begun(session_id: str, call_id: str) -> NotFound:
    """The error for finishing a call that ``begin_call`` never recorded."""
    return NotFound(f"call {call_id!r} of session {session_id!r} was never begun")


def busy(label: str, timeout: float) -> Busy:
    """The error for a lock (``session_label`` or ``scope_label``) not acquired within ``timeout`` seconds."""
    return Busy(f"{label} is busy: its lock was not acquired within {timeout:g}s")


def poll_lock(try_acquire: Callable[[], bool], label: str, timeout: float) -> None:
    """Call ``try_acquire`` until it returns True, pausing 0.5 ms growing to 20 ms between tries;
    raise ``busy`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    pause = 0.0005
    while not try_acquire():
        if time.monotonic() >= deadline:
            raise busy(label, timeout)
        time.sleep(pause)
        pause = min(pause * 2, 0.02)
