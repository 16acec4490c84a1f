"""What the SQLite and PostgreSQL stores share: the tables, the statements where the dialects
agree, the row <-> ``Session``/``CallRecord`` mapping and the write algorithms.

Tables (both dialects): ``toolpen_sessions``, ``toolpen_state_keys`` (one row per scope owner
and state key: a commit writes the keys it changes, nothing else), ``toolpen_events`` and
``toolpen_calls``. Each state row keeps its value's size as compact JSON and a revision (a
random number written with each new value): a read fetches the large values only when the
store's ``ValueCache`` does not hold them at that revision (``runtime/store/_value_cache.py``). Statements are written once with ``?`` placeholders
(and no literal ``?`` or ``%``); a store whose driver wants another style names it in
``placeholder``. A store supplies its connections, the column types, its session lock, how a
session is read.
"""

from __future__ import annotations

import functools
import secrets
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, closing
from typing import Any, ClassVar, Protocol

from runtime._session import CallRecord, Event, Session, SessionSummary
from runtime._state import StateDelta, encode_json
from runtime.store._base import FinishedCall, StateOwner, Store, already_finished, never_begun, scoped_parts
from runtime.store._value_cache import CACHED_FROM, MISSING, ValueCache
from sandbox.common.errors import NotFound

TABLES = """
CREATE TABLE toolpen_sessions (
    id text PRIMARY KEY,
    app_name text NOT NULL,
    user_id text NOT NULL,
    create_time {real} NOT NULL,
    last_update_time {real} NOT NULL
);
{state_keys}
CREATE TABLE toolpen_events (
    seq {serial},
    session_id text NOT NULL,
    data {json} NOT NULL
);
CREATE TABLE toolpen_calls (
    session_id text NOT NULL,
    call_id text NOT NULL,
    tool text NOT NULL,
    args {json} NOT NULL,
    status text NOT NULL,
    result {json},
    started_at {real} NOT NULL,
    finished_at {real},
    PRIMARY KEY (session_id, call_id)
);
"""
"""The tables, with the column types a dialect fills in: ``real``, ``json``, ``state_json``
(the state values) and ``serial`` (an increasing integer primary key)."""

STATE_KEYS = """
-- one row per scope and key: app (app, '', ''), user (app, user, ''), session (app, user, id);
-- seq keeps the order keys were first set in. The value comes last, so that reading a row's
-- size and revision does not walk a large value's overflow pages (SQLite)
CREATE TABLE toolpen_state_keys (
    seq {serial},
    app_name text NOT NULL,
    user_id text NOT NULL,
    session_id text NOT NULL,
    key text NOT NULL,
    size bigint NOT NULL,
    rev bigint NOT NULL,
    value {state_json} NOT NULL,
    UNIQUE (app_name, user_id, session_id, key)
);
CREATE INDEX toolpen_state_keys_in_order ON toolpen_state_keys (app_name, user_id, session_id, seq);
"""
"""The per-key state table (schema version 3 of SQLite, 2 of PostgreSQL), as ``TABLES``."""


def tables(**types: str) -> str:
    """``TABLES`` with a dialect's column types filled in."""
    return TABLES.format(state_keys=STATE_KEYS.format(**types), **types)


STATE_ROW = """CASE WHEN {table}session_id <> '' THEN 2 WHEN {table}user_id <> '' THEN 1 ELSE 0 END,
    {table}key, {table}size, CASE WHEN {table}size >= {cached} THEN {table}rev END"""
"""The first columns of a state row as ``SqlStore._state`` reads them: the scope (0 app, 1 user,
2 session), the key, the size and (for a cached value) the revision; few Python objects per row
(small integers and None are shared)."""

ALL_VALUES = 1 << 62
"""A size no value reaches: every value read."""

INDEXES = """
CREATE INDEX toolpen_sessions_by_owner ON toolpen_sessions (app_name, user_id);
CREATE INDEX toolpen_events_by_session ON toolpen_events (session_id, seq);
"""

CALL_COLUMNS = "session_id, call_id, tool, args, status, result, started_at, finished_at"

_LIST_SESSIONS = """
SELECT s.id, s.app_name, s.user_id, s.last_update_time,
    (SELECT count(*) FROM toolpen_events e WHERE e.session_id = s.id) AS event_count
FROM toolpen_sessions s
WHERE s.app_name = coalesce(?, s.app_name) AND s.user_id = coalesce(?, s.user_id)
ORDER BY s.last_update_time DESC
"""

_INSERT_SESSION = """
INSERT INTO toolpen_sessions (id, app_name, user_id, create_time, last_update_time)
VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
"""

_INSERT_CALL = f"""
INSERT INTO toolpen_calls ({CALL_COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, ?, NULL)
ON CONFLICT (session_id, call_id) DO NOTHING
"""

GET_EVENTS = "SELECT data FROM toolpen_events WHERE session_id = ? ORDER BY seq"

_GET_CALL = f"SELECT {CALL_COLUMNS} FROM toolpen_calls WHERE session_id = ? AND call_id = ?"

_UPSERT_KEY = """
INSERT INTO toolpen_state_keys (app_name, user_id, session_id, key, value, size, rev)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (app_name, user_id, session_id, key)
DO UPDATE SET value = excluded.value, size = excluded.size, rev = excluded.rev
"""

_DELETE_KEY = """
DELETE FROM toolpen_state_keys WHERE app_name = ? AND user_id = ? AND session_id = ? AND key = ?
"""

_FINISH_CALL = """
UPDATE toolpen_calls SET status = ?, result = ?, finished_at = ?
WHERE session_id = ? AND call_id = ? AND status = 'started'
"""


class Cursor(Protocol):
    """What the stores use of a DB-API cursor (sqlite3's and psycopg's)."""

    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]], /) -> object: ...

    def close(self) -> None: ...


class Connection(Protocol):
    """What the stores use of a connection; rows read by column name."""

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any], /) -> Cursor: ...

    def cursor(self) -> Cursor: ...


@functools.cache
def in_style(statement: str, placeholder: str) -> str:
    """``statement`` with its ``?`` placeholders written as ``placeholder``."""
    return statement.replace("?", placeholder)


def dumps(value: Any) -> str:
    """A JSON column's text."""
    return encode_json(value, "a value")


class SqlStore(Store):
    """A store in the four tables; a subclass supplies what its dialect does differently."""

    placeholder: ClassVar[str] = "?"
    _values: ValueCache
    """The large values read, by revision (each store makes its own when opened)."""
    row_lock: ClassVar[str] = ""
    """Appended to a ``SELECT`` of the session's row to lock it until the transaction ends
    (empty where a write transaction already excludes every other writer)."""

    # -- what a dialect supplies ----------------------------------------------------------

    @abstractmethod
    def _transaction(self, timeout: float | None = None) -> AbstractContextManager[Connection]:
        """One write transaction: committed, or rolled back on any error (also when its statements,
        waiting for a lock included, take more than ``timeout`` seconds)."""

    @abstractmethod
    def _reading(self) -> AbstractContextManager[Connection]:
        """A connection whose statements read one consistent snapshot each."""

    @abstractmethod
    def _json(self, value: Any) -> Any:
        """The value of a JSON column as the driver returned it."""

    @abstractmethod
    def _decoded(self, values: Sequence[Any]) -> list[Any]:
        """The state values of ``_state``'s rows as the driver returned them, decoded."""

    # -- shared reads and writes ----------------------------------------------------------

    def _run(self, conn: Connection, statement: str, params: Sequence[Any]) -> Cursor:
        return conn.execute(in_style(statement, self.placeholder), params)

    def _state(
        self, owners: list[StateOwner], rows: Iterable[Sequence[Any]], read_below: int
    ) -> tuple[dict[str, Any], dict[str, int]] | None:
        """The merged state and its values' sizes from the ``STATE_ROW`` rows of the app, user
        and session scopes (``owners``), in that order (their values read when under
        ``read_below`` bytes, the others taken from the cache); None when the cache lacks one of
        those at its revision. Built in C but for the large values: a state can hold hundreds of
        thousands of keys."""
        rows = list(rows)
        if not rows:
            return {}, {}
        scopes, keys, sizes, revs, values = zip(*rows, strict=True)
        state = dict(zip(keys, self._decoded(values), strict=True))
        for index in [index for index, size in enumerate(sizes) if size >= CACHED_FROM]:
            key, size, rev = keys[index], sizes[index], revs[index]
            owner = owners[scopes[index]]
            if size < read_below:
                self._values.put(owner, key, rev, size, state[key])
                continue
            value = self._values.get(owner, key, rev)
            if value is MISSING:
                return None
            state[key] = value
        return state, dict(zip(keys, sizes, strict=True))

    def _session(
        self,
        session_id: str,
        meta: Mapping[str, Any],
        state: tuple[dict[str, Any], dict[str, int]],
        events: Iterable[Any],
    ) -> Session:
        """A session from its row, its state and values' sizes, and its events in order (none
        when they were not read)."""
        return Session(
            id=session_id,
            app_name=meta["app_name"],
            user_id=meta["user_id"],
            last_update_time=meta["last_update_time"],
            state=state[0],
            state_sizes=state[1],
            events=self._events(events),
        )

    def _events(self, rows: Iterable[Any]) -> list[Event]:
        """Events from their JSON column values, in order."""
        return [Event.model_validate(self._json(event)) for event in rows]

    def _get_events(self, session_id: str) -> list[Event]:
        with self._reading() as conn:
            rows = self._run(conn, GET_EVENTS, (session_id,)).fetchall()
        return self._events([row["data"] for row in rows])

    def _record(self, row: Mapping[str, Any]) -> CallRecord:
        result = row["result"]
        return CallRecord.model_validate(
            {**row, "args": self._json(row["args"]), "result": None if result is None else self._json(result)}
        )

    def list_sessions(self, app_name: str | None = None, user_id: str | None = None) -> list[SessionSummary]:
        with self._reading() as conn:
            rows = self._run(conn, _LIST_SESSIONS, (app_name, user_id)).fetchall()
        return [SessionSummary.model_validate(dict(row)) for row in rows]

    def _delete_session(self, session_id: str, idle_before: float | None) -> bool:
        with self._transaction() as conn:
            owners = self._run(
                conn,
                "DELETE FROM toolpen_sessions WHERE id = ? AND last_update_time < coalesce(?, last_update_time + 1)"
                " RETURNING app_name, user_id",
                (session_id, idle_before),
            ).fetchall()
            if not owners:
                return False
            self._run(
                conn,
                "DELETE FROM toolpen_state_keys WHERE app_name = ? AND user_id = ? AND session_id = ?",
                (owners[0]["app_name"], owners[0]["user_id"], session_id),
            )
            self._run(conn, "DELETE FROM toolpen_events WHERE session_id = ?", (session_id,))
            self._run(conn, "DELETE FROM toolpen_calls WHERE session_id = ?", (session_id,))
            return True

    def _idle_sessions(self, before: float) -> list[str]:
        with self._reading() as conn:
            rows = self._run(
                conn, "SELECT id FROM toolpen_sessions WHERE last_update_time < ?", (before,)
            ).fetchall()
        return [row["id"] for row in rows]

    def get_call(self, session_id: str, call_id: str) -> CallRecord | None:
        with self._reading() as conn:
            row = self._run(conn, _GET_CALL, (session_id, call_id)).fetchone()
        return None if row is None else self._record(row)

    def _insert_session(
        self, session_id: str, app_name: str, user_id: str, delta: StateDelta, now: float
    ) -> bool:
        with self._transaction() as conn:
            inserted = self._run(conn, _INSERT_SESSION, (session_id, app_name, user_id, now, now)).rowcount
            if inserted:
                self._merge(conn, session_id, app_name, user_id, delta)
            return bool(inserted)

    def _begin_call(self, record: CallRecord) -> CallRecord | None:
        with self._transaction() as conn:
            self._lock_session_row(conn, record.session_id)
            values = (record.session_id, record.call_id, record.tool, dumps(record.args))
            inserted = self._run(conn, _INSERT_CALL, (*values, record.status, record.started_at)).rowcount
            if inserted:
                return None
            return self._record(self._run(conn, _GET_CALL, (record.session_id, record.call_id)).fetchone())

    def _commit_call(self, call: FinishedCall) -> None:
        session_id = call.session_id
        with self._transaction(call.time_left()) as conn:
            owners = self._run(
                conn,
                "UPDATE toolpen_sessions SET last_update_time = ? WHERE id = ? RETURNING app_name, user_id",
                (call.now, session_id),
            ).fetchall()
            if not owners:
                raise NotFound(f"session {session_id!r} not found")
            self._finish(conn, call)
            self._merge(conn, session_id, owners[0]["app_name"], owners[0]["user_id"], call.delta)
            with closing(conn.cursor()) as cursor:
                cursor.executemany(
                    in_style("INSERT INTO toolpen_events (session_id, data) VALUES (?, ?)", self.placeholder),
                    [(session_id, text) for text in call.events_json],
                )

    def _fail_call(self, call: FinishedCall) -> None:
        with self._transaction() as conn:
            self._lock_session_row(conn, call.session_id)
            self._finish(conn, call)

    # -- inside a transaction -------------------------------------------------------------

    def _lock_session_row(self, conn: Connection, session_id: str) -> None:
        """Lock the session's row until the transaction ends (a concurrent delete waits); or NotFound."""
        statement = f"SELECT 1 FROM toolpen_sessions WHERE id = ?{self.row_lock}"
        if self._run(conn, statement, (session_id,)).fetchone() is None:
            raise NotFound(f"session {session_id!r} not found")

    def _finish(self, conn: Connection, call: FinishedCall) -> None:
        """Store the call's result, once: ``already_finished`` or ``never_begun`` otherwise."""
        session_id, call_id = call.session_id, call.call_id
        params = (call.status, call.result_json, call.now, session_id, call_id)
        if self._run(conn, _FINISH_CALL, params).rowcount:
            return
        exists = self._run(conn, _GET_CALL, (session_id, call_id)).fetchone()
        raise already_finished(session_id, call_id) if exists else never_begun(session_id, call_id)

    def _merge(
        self, conn: Connection, session_id: str, app_name: str, user_id: str, delta: StateDelta
    ) -> None:
        for owner, part in scoped_parts(delta, app_name, user_id, session_id):
            self._merge_state(conn, owner, part)

    def _merge_state(self, conn: Connection, owner: StateOwner, part: StateDelta) -> None:
        """Write the keys ``part`` sets (each with its size and a new revision) and delete those it
        deletes: concurrent writers of a shared scope's other keys both land."""
        with closing(conn.cursor()) as cursor:
            if part.set:
                rows = []
                for key, value in part.set.items():
                    text = dumps(value)
                    rows.append((*owner, key, text, len(text.encode()), secrets.randbits(62)))
                cursor.executemany(in_style(_UPSERT_KEY, self.placeholder), rows)
            if part.deleted:
                keys = [(*owner, key) for key in part.deleted]
                cursor.executemany(in_style(_DELETE_KEY, self.placeholder), keys)
