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
from runtime.store._base import (
    FinishedCall,
    StateOwner,
    Store,
    already_finished,
    never_begun,
    scoped_parts,
    state_owners,
)
from runtime.store._value_cache import CACHED_FROM, MISSING, Part, ScopeCache, ValueCache, Written
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


STATE_SCOPES = """
-- one row per scope that was ever written: a random version, new with each commit changing it
CREATE TABLE toolpen_state_scopes (
    app_name text NOT NULL,
    user_id text NOT NULL,
    session_id text NOT NULL,
    version bigint NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id)
);
"""
"""The scope versions (schema version 4 of SQLite, 3 of PostgreSQL): a read whose scopes the
store's ``ScopeCache`` holds at these versions reads none of their rows."""


def tables(**types: str) -> str:
    """``TABLES`` with a dialect's column types filled in."""
    return TABLES.format(state_keys=STATE_KEYS.format(**types) + STATE_SCOPES, **types)


STATE_ROW = "key, size, CASE WHEN size >= {cached} THEN rev END"
"""The first columns of a state row as ``SqlStore._scope_part`` reads them: the key, the size and
(for a cached value) the revision; few Python objects per row (small integers and None are
shared)."""

SCOPE_ROWS = "FROM toolpen_state_keys WHERE app_name = ? AND user_id = ? AND session_id = ? ORDER BY seq"
"""Where a scope's state rows are read from, in order."""

_SCOPE_VERSIONS = """
SELECT user_id, session_id, version FROM toolpen_state_scopes
WHERE app_name = ? AND user_id IN ('', ?) AND session_id IN ('', ?)
"""

_UPSERT_SCOPE = """
INSERT INTO toolpen_state_scopes (app_name, user_id, session_id, version) VALUES (?, ?, ?, ?)
ON CONFLICT (app_name, user_id, session_id) DO UPDATE SET version = excluded.version
"""

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
    _scopes: ScopeCache
    """The scopes read or written, by version (each store makes its own when opened)."""
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
        """The state values of ``_scope_rows``' rows as the driver returned them, decoded."""

    @abstractmethod
    def _scope_rows(self, conn: Connection, owner: StateOwner, read_below: int) -> Sequence[Sequence[Any]]:
        """``owner``'s ``STATE_ROW`` rows in order, each with its value when under ``read_below``
        bytes (JSON ``null`` otherwise)."""

    # -- shared reads and writes ----------------------------------------------------------

    def _run(self, conn: Connection, statement: str, params: Sequence[Any]) -> Cursor:
        return conn.execute(in_style(statement, self.placeholder), params)

    def _read_state(self, conn: Connection, app_name: str, user_id: str, session_id: str) -> Part:
        """The session's merged state and its values' sizes, in one snapshot of ``conn``: the rows
        of the scopes whose versions the ``ScopeCache`` does not hold, and none of the others."""
        owners = state_owners(app_name, user_id, session_id)
        rows = self._run(conn, _SCOPE_VERSIONS, (app_name, user_id, session_id)).fetchall()
        versions = {(app_name, row["user_id"], row["session_id"]): row["version"] for row in rows}
        while True:
            parts: list[tuple[StateOwner, int | None, Part | None]] = []
            for owner in owners:
                version, part = versions.get(owner), None
                if not self._scopes.holds(owner, version):
                    part = self._read_scope(conn, owner)
                    if version is not None:
                        self._scopes.put(owner, version, *part)
                parts.append((owner, version, part))
            merged = self._scopes.merged(parts)
            if merged is not None:  # else one was dropped meanwhile: read it
                return merged

    def _read_scope(self, conn: Connection, owner: StateOwner) -> Part:
        for read_below in (CACHED_FROM, ALL_VALUES):  # all of them when the cache lacks one
            part = self._scope_part(owner, self._scope_rows(conn, owner, read_below), read_below)
            if part is not None:
                return part
        raise AssertionError("a read of every value needs no cache")

    def _scope_part(self, owner: StateOwner, rows: Sequence[Sequence[Any]], read_below: int) -> Part | None:
        """A scope's values and their sizes from its ``STATE_ROW`` rows (their values read when
        under ``read_below`` bytes, the others taken from the cache); None when the cache lacks
        one of those at its revision. Built in C but for the large values: a scope can hold
        hundreds of thousands of keys."""
        if not rows:
            return {}, {}
        keys, sizes, revs, values = zip(*rows, strict=True)
        state = dict(zip(keys, self._decoded(values), strict=True))
        for index in [index for index, size in enumerate(sizes) if size >= CACHED_FROM]:
            key, size, rev = keys[index], sizes[index], revs[index]
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
        state: Part,
        events: Iterable[Any],
    ) -> Session:
        """A session from its row, its state and values' sizes, and its events in order (none
        when they were not read)."""
        return Session.stored(
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
            owner = (owners[0]["app_name"], owners[0]["user_id"], session_id)
            for table in ("toolpen_state_keys", "toolpen_state_scopes"):
                self._run(
                    conn, f"DELETE FROM {table} WHERE app_name = ? AND user_id = ? AND session_id = ?", owner
                )
            self._scopes.drop(owner)
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
        written: list[Written] = []
        with self._transaction() as conn:
            inserted = self._run(conn, _INSERT_SESSION, (session_id, app_name, user_id, now, now)).rowcount
            if inserted:
                written = self._merge(conn, session_id, app_name, user_id, delta)
        self._scopes.advance(written)
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
            written = self._merge(conn, session_id, owners[0]["app_name"], owners[0]["user_id"], call.delta)
            with closing(conn.cursor()) as cursor:
                cursor.executemany(
                    in_style("INSERT INTO toolpen_events (session_id, data) VALUES (?, ?)", self.placeholder),
                    [(session_id, text) for text in call.events_json],
                )
        self._scopes.advance(written)

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
    ) -> list[Written]:
        return [
            self._merge_state(conn, owner, part)
            for owner, part in scoped_parts(delta, app_name, user_id, session_id)
        ]

    def _merge_state(self, conn: Connection, owner: StateOwner, part: StateDelta) -> Written:
        """Write the keys ``part`` sets (each with its size and a new revision), delete those it
        deletes (concurrent writers of a shared scope's other keys both land) and give the scope
        a new version: what it wrote, for ``_advance``."""
        statement = f"SELECT version FROM toolpen_state_scopes WHERE app_name = ? AND user_id = ? AND session_id = ?{self.row_lock}"
        found = self._run(conn, statement, owner).fetchone()
        new = secrets.randbits(62)
        self._run(conn, _UPSERT_SCOPE, (*owner, new))
        sizes = {}
        with closing(conn.cursor()) as cursor:
            if part.set:
                rows = []
                for key, value in part.set.items():
                    text = dumps(value)
                    sizes[key] = len(text.encode())
                    rows.append((*owner, key, text, sizes[key], secrets.randbits(62)))
                cursor.executemany(in_style(_UPSERT_KEY, self.placeholder), rows)
            if part.deleted:
                keys = [(*owner, key) for key in part.deleted]
                cursor.executemany(in_style(_DELETE_KEY, self.placeholder), keys)
        return owner, None if found is None else found["version"], new, part, sizes
