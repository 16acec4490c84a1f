"""``memory://``: a store in this process's memory, for tests and one-off runs.

One ``threading.Lock`` guards the data (every operation is short and atomic under it);
``lock(session_id)`` hands out a separate lock per session, so calls in different sessions
run in parallel, and ``lock_scopes`` one per shared scope. Values are copied in and out through JSON, so callers never share
mutable state with the store. Nothing is shared with other processes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from itertools import repeat
from typing import Any

from runtime._session import CallRecord, Event, Session, SessionSummary
from runtime._state import StateDelta, encode_json
from runtime.store._base import (
    LOCK_TIMEOUT,
    FinishedCall,
    StateOwner,
    Store,
    StoreSize,
    already_finished,
    busy,
    never_begun,
    scope_label,
    scoped_parts,
    session_label,
    state_owners,
)
from sandbox.common.errors import NotFound, StoreError
from sandbox.common.state_delta import json_size


def _copy(value: Any) -> Any:
    return json.loads(encode_json(value, "a value"))


_IMMUTABLE = (str, int, float, bool, type(None))


def _copy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A copy of a stored (JSON-safe) state sharing nothing mutable with it: only its containers
    are copied through JSON, not the whole state (it can hold hundreds of thousands of keys)."""
    if all(map(isinstance, state.values(), repeat(_IMMUTABLE))):  # checked in C
        return dict(state)
    return {key: value if isinstance(value, _IMMUTABLE) else _copy(value) for key, value in state.items()}


class MemoryStore(Store):
    """Sessions kept in dictionaries; gone when the process ends."""

    def __init__(self) -> None:
        self.url = "memory://"
        self._data_lock = threading.Lock()
        self._locks: dict[str | StateOwner, threading.Lock] = {}  # by session id, or scope owner
        self._sessions: dict[str, dict[str, Any]] = {}
        self._states: dict[StateOwner, dict[str, Any]] = {}
        self._sizes: dict[StateOwner, dict[str, int]] = {}
        """The JSON size of each value of ``_states``, measured once when it is set."""
        self._events: dict[str, list[dict[str, Any]]] = {}
        self._calls: dict[tuple[str, str], CallRecord] = {}  # their results apart, in _results
        self._results: dict[tuple[str, str], str] = {}
        """Each finished call's result as the JSON text it was checked as: decoded only when a
        record is read (a result holds the whole state)."""

    def _get_session(self, session_id: str, events: bool) -> Session | None:
        with self._data_lock:
            meta = self._sessions.get(session_id)
            if meta is None:
                return None
            state: dict[str, Any] = {}
            sizes: dict[str, int] = {}
            for owner in state_owners(meta["app_name"], meta["user_id"], session_id):
                state.update(self._states.get(owner, {}))
                sizes.update(self._sizes.get(owner, {}))
            state = _copy_state(state)
            stored = _copy(self._events[session_id]) if events else []
            meta = dict(meta)
        events_read = [Event.model_validate(e) for e in stored]
        return Session.stored(id=session_id, state=state, state_sizes=sizes, events=events_read, **meta)

    def _get_events(self, session_id: str) -> list[Event]:
        with self._data_lock:
            stored = _copy(self._events.get(session_id, []))
        return [Event.model_validate(e) for e in stored]

    def list_sessions(self, app_name: str | None = None, user_id: str | None = None) -> list[SessionSummary]:
        with self._data_lock:
            summaries = [
                SessionSummary(id=sid, event_count=len(self._events[sid]), **meta)
                for sid, meta in self._sessions.items()
                if app_name in (None, meta["app_name"]) and user_id in (None, meta["user_id"])
            ]
        return sorted(summaries, key=lambda s: s.last_update_time, reverse=True)

    def _delete_session(self, session_id: str, idle_before: float | None) -> bool:
        with self._data_lock:
            meta = self._sessions.get(session_id)
            if meta is None or (idle_before is not None and meta["last_update_time"] >= idle_before):
                return False
            del self._sessions[session_id]
            del self._events[session_id]
            self._states.pop((meta["app_name"], meta["user_id"], session_id), None)
            self._sizes.pop((meta["app_name"], meta["user_id"], session_id), None)
            for key in [key for key in self._calls if key[0] == session_id]:
                del self._calls[key]
                self._results.pop(key, None)
            return True

    def _idle_sessions(self, before: float) -> list[str]:
        with self._data_lock:
            return [sid for sid, meta in self._sessions.items() if meta["last_update_time"] < before]

    def size(self) -> StoreSize:
        """The JSON text of every state, event and call result held."""
        with self._data_lock:
            texts = [*self._states.values(), *self._events.values(), *self._sessions.values()]
            total = sum(len(encode_json(value, "a value")) for value in texts)
            total += sum(len(text) for text in self._results.values())
        return StoreSize(total, "JSON text held in memory")

    def lock(self, session_id: str, timeout: float = LOCK_TIMEOUT) -> AbstractContextManager[None]:
        return self._hold(session_id, session_label(session_id), timeout)

    def _lock_scope(self, owner: StateOwner, timeout: float) -> AbstractContextManager[None]:
        return self._hold(owner, scope_label(owner), timeout)

    @contextmanager
    def _hold(self, name: str | StateOwner, label: str, timeout: float) -> Iterator[None]:
        with self._data_lock:
            held = self._locks.setdefault(name, threading.Lock())
        if not held.acquire(timeout=timeout):
            raise busy(label, timeout)
        try:
            yield
        finally:
            held.release()

    def close(self) -> None:
        """Nothing to release: the data goes with the object."""

    def get_call(self, session_id: str, call_id: str) -> CallRecord | None:
        with self._data_lock:
            return self._read_call((session_id, call_id))

    def _insert_session(
        self, session_id: str, app_name: str, user_id: str, delta: StateDelta, now: float
    ) -> bool:
        with self._data_lock:
            if session_id in self._sessions:
                return False
            self._sessions[session_id] = {"app_name": app_name, "user_id": user_id, "last_update_time": now}
            self._events[session_id] = []
            self._apply(session_id, delta)
            return True

    def _begin_call(self, record: CallRecord) -> CallRecord | None:
        with self._data_lock:
            self._require_session(record.session_id)
            existing = self._read_call((record.session_id, record.call_id))
            if existing is not None:
                return existing
            self._calls[(record.session_id, record.call_id)] = record.model_copy(
                update={"args": _copy(record.args)}
            )
            return None

    def _commit_call(self, call: FinishedCall) -> None:
        left = call.time_left()
        if not self._data_lock.acquire(timeout=-1 if left is None else left):
            raise StoreError("session store memory://: the store was busy until the call's deadline")
        try:
            record = self._started_call(call.session_id, call.call_id)
            self._apply(call.session_id, call.delta)
            self._events[call.session_id].extend([json.loads(text) for text in call.events_json])
            self._sessions[call.session_id]["last_update_time"] = call.now
            self._finish(record, call)
        finally:
            self._data_lock.release()

    def _fail_call(self, call: FinishedCall) -> None:
        with self._data_lock:
            self._finish(self._started_call(call.session_id, call.call_id), call)

    # -- under self._data_lock ------------------------------------------------------------

    def _require_session(self, session_id: str) -> dict[str, Any]:
        meta = self._sessions.get(session_id)
        if meta is None:
            raise NotFound(f"session {session_id!r} not found")
        return meta

    def _read_call(self, key: tuple[str, str]) -> CallRecord | None:
        record = self._calls.get(key)
        if record is None:
            return None
        text = self._results.get(key)
        return record.model_copy(deep=True, update={"result": None if text is None else json.loads(text)})

    def _started_call(self, session_id: str, call_id: str) -> CallRecord:
        self._require_session(session_id)
        record = self._calls.get((session_id, call_id))
        if record is None:
            raise never_begun(session_id, call_id)
        if record.finished:
            raise already_finished(session_id, call_id)
        return record

    def _apply(self, session_id: str, delta: StateDelta) -> None:
        meta = self._sessions[session_id]
        for owner, part in scoped_parts(delta, meta["app_name"], meta["user_id"], session_id):
            state, sizes = self._states.setdefault(owner, {}), self._sizes.setdefault(owner, {})
            state.update(_copy_state(part.set))  # in place: readers copy under the lock
            sizes.update({key: json_size(value) for key, value in part.set.items()})
            for key in part.deleted:
                state.pop(key, None)
                sizes.pop(key, None)

    def _finish(self, record: CallRecord, call: FinishedCall) -> None:
        record.status = call.status
        self._results[(call.session_id, call.call_id)] = call.result_json
        record.finished_at = call.now
