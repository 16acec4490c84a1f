"""``postgresql://``: sessions in PostgreSQL (psycopg 3), shared by processes and machines.

Data: tables ``toolpen_sessions``, ``toolpen_states`` (one ``jsonb`` row per scope owner),
``toolpen_events`` and ``toolpen_calls`` (``json``: the text is kept as written) in the
connection's current schema (``?options=-csearch_path%3Dname`` in the URL picks another),
created on first open; ``toolpen_schema`` holds their version. Every write is one transaction
that takes the session's row lock first; a delta is merged by the server in each scope row's
upsert (``(state || set) - deleted``), so concurrent sessions writing ``app:``/``user:`` keys
merge key by key. A read is one statement, hence one snapshot. ``jsonb`` cannot hold the
character U+0000: such a value is refused as invalid state.

Session locks: ``pg_advisory_lock(hashtextextended(schema || ':' || session_id, 0))``, a session-level
advisory lock held on a connection of its own for the block. The server releases it when that
connection closes, so a holder that dies frees it at once; waiting is the server's queue under
``lock_timeout`` (no polling). Two session ids whose 32-bit hashes collide share one lock:
they only wait for each other.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import DictRow, dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from runtime.errors import InvalidArguments, InvalidState, NotFound, ToolpenError
from runtime.session import CallRecord, CallStatus, Event, Session, SessionSummary, StateDelta, encode_json
from runtime.store.base import LOCK_TIMEOUT, Store, already_finished, busy, never_begun, scoped_parts

SCHEMA_VERSION = 1

POOL_SIZE = 10
"""Connections of one store for reads and writes (each held for one statement or transaction)."""

LOCK_CONNECTIONS = 50
"""Connections of one store for session locks: at most this many held or awaited at once."""

_SCHEMA = """
CREATE TABLE toolpen_schema (version integer NOT NULL);
CREATE TABLE toolpen_sessions (
    id text PRIMARY KEY,
    app_name text NOT NULL,
    user_id text NOT NULL,
    create_time double precision NOT NULL,
    last_update_time double precision NOT NULL
);
CREATE INDEX toolpen_sessions_by_owner ON toolpen_sessions (app_name, user_id);
-- one row per scope: app (app, '', ''), user (app, user, ''), session (app, user, id)
CREATE TABLE toolpen_states (
    app_name text NOT NULL,
    user_id text NOT NULL,
    session_id text NOT NULL,
    state jsonb NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id)
);
CREATE TABLE toolpen_events (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id text NOT NULL,
    data json NOT NULL
);
CREATE INDEX toolpen_events_by_session ON toolpen_events (session_id, seq);
CREATE TABLE toolpen_calls (
    session_id text NOT NULL,
    call_id text NOT NULL,
    tool text NOT NULL,
    args json NOT NULL,
    status text NOT NULL,
    result json,
    started_at double precision NOT NULL,
    finished_at double precision,
    PRIMARY KEY (session_id, call_id)
);
"""

_CALL_COLUMNS = "session_id, call_id, tool, args, status, result, started_at, finished_at"

# one 64-bit key per (schema, session): a 32-bit hash would let a tenant search offline for an
# id whose lock collides with another tenant's session and hold it
_LOCK_KEY = "hashtextextended(current_schema() || ':' || %s, 0)"

_GET_SESSION = """
SELECT s.app_name, s.user_id, s.last_update_time,
    ARRAY(SELECT st.state FROM toolpen_states st
          WHERE st.app_name = s.app_name AND st.user_id IN ('', s.user_id) AND st.session_id IN ('', s.id)
          ORDER BY st.user_id, st.session_id) AS states,
    ARRAY(SELECT e.data FROM toolpen_events e WHERE e.session_id = s.id ORDER BY e.seq) AS events
FROM toolpen_sessions s WHERE s.id = %s
"""

_MERGE_STATE = """
INSERT INTO toolpen_states AS old (app_name, user_id, session_id, state)
VALUES (%(app)s, %(user)s, %(session)s, %(set)s::jsonb - %(deleted)s::text[])
ON CONFLICT (app_name, user_id, session_id)
DO UPDATE SET state = (old.state || %(set)s::jsonb) - %(deleted)s::text[]
"""


def _dumps(value: Any) -> str:
    return encode_json(value, "a value")


def _pool(url: str, *, min_size: int, max_size: int) -> ConnectionPool[psycopg.Connection[DictRow]]:
    """A pool of autocommit connections whose rows are dicts."""
    return ConnectionPool(
        url,
        connection_class=psycopg.Connection[DictRow],
        kwargs={"autocommit": True, "row_factory": dict_row},
        min_size=min_size,
        max_size=max_size,
        open=True,
    )


def _display_name(url: str) -> str:
    """The URL without its password, for messages; ``InvalidArguments`` if libpq cannot read it."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:  # its message quotes the URL, password included
        raise InvalidArguments(
            "not a PostgreSQL URL: postgresql://user:password@host:port/db?param=value"
        ) from None
    return f"postgresql://{parts.get('host', '')}:{parts.get('port', '5432')}/{parts.get('dbname', '')}"


class PostgresStore(Store):
    """Sessions in a PostgreSQL database, named by a libpq URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._name = _display_name(url)
        with self._errors(), psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            self._create_schema(conn)
        self._pool = _pool(url, min_size=1, max_size=POOL_SIZE)
        self._lock_pool = _pool(url, min_size=0, max_size=LOCK_CONNECTIONS)

    # -- connections and transactions -----------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """PostgreSQL's errors as a ``ToolpenError`` (``InvalidState`` for a value it refuses)."""
        try:
            yield
        except psycopg.errors.UntranslatableCharacter as exc:
            raise InvalidState(f"a value cannot be stored in PostgreSQL: {exc}") from None
        except psycopg.Error as exc:
            raise ToolpenError(f"session store {self._name}: {exc}") from exc

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[DictRow]]:
        with self._errors(), self._pool.connection() as conn:
            yield conn

    @contextmanager
    def _transaction(self) -> Iterator[psycopg.Connection[DictRow]]:
        """One transaction: committed, or rolled back on any error."""
        with self._connection() as conn, conn.transaction():
            yield conn

    def _create_schema(self, conn: psycopg.Connection[Any]) -> None:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('toolpen schema ' || current_schema()))")
            if conn.execute("SELECT to_regclass('toolpen_schema')").fetchone() == (None,):
                conn.execute(_SCHEMA)
                conn.execute("INSERT INTO toolpen_schema VALUES (%s)", (SCHEMA_VERSION,))
                return
            row = conn.execute("SELECT version FROM toolpen_schema").fetchone()
        if row != (SCHEMA_VERSION,):
            raise ToolpenError(
                f"{self._name} has store schema version {row and row[0]}; "
                f"this toolpen reads version {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        self._pool.close()
        self._lock_pool.close()

    # -- sessions -------------------------------------------------------------------------

    def get_session(self, session_id: str) -> Session | None:
        with self._connection() as conn:
            row = conn.execute(_GET_SESSION, (session_id,)).fetchone()
        if row is None:
            return None
        state: dict[str, Any] = {}
        for part in row.pop("states"):  # app, then user, then session
            state.update(part)
        events = [Event.model_validate(event) for event in row.pop("events")]
        return Session(id=session_id, state=state, events=events, **row)

    def list_sessions(self, app_name: str | None = None, user_id: str | None = None) -> list[SessionSummary]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT s.id, s.app_name, s.user_id, s.last_update_time,"
                " (SELECT count(*) FROM toolpen_events e WHERE e.session_id = s.id) AS event_count"
                " FROM toolpen_sessions s"
                " WHERE (%(app)s::text IS NULL OR s.app_name = %(app)s)"
                " AND (%(user)s::text IS NULL OR s.user_id = %(user)s)"
                " ORDER BY s.last_update_time DESC",
                {"app": app_name, "user": user_id},
            ).fetchall()
        return [SessionSummary.model_validate(row) for row in rows]

    def delete_session(self, session_id: str) -> bool:
        with self._transaction() as conn:
            owner = conn.execute(
                "DELETE FROM toolpen_sessions WHERE id = %s RETURNING app_name, user_id", (session_id,)
            ).fetchone()
            if owner is None:
                return False
            conn.execute(
                "DELETE FROM toolpen_states WHERE app_name = %s AND user_id = %s AND session_id = %s",
                (owner["app_name"], owner["user_id"], session_id),
            )
            conn.execute("DELETE FROM toolpen_events WHERE session_id = %s", (session_id,))
            conn.execute("DELETE FROM toolpen_calls WHERE session_id = %s", (session_id,))
            return True

    # -- locking --------------------------------------------------------------------------

    @contextmanager
    def lock(self, session_id: str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
        deadline = time.monotonic() + timeout
        with self._errors():
            try:
                conn = self._lock_pool.getconn(timeout=timeout)
            except PoolTimeout:
                raise busy(session_id, timeout) from None
        try:
            self._acquire(conn, session_id, max(deadline - time.monotonic(), 0.001), timeout)
            try:
                yield
            finally:
                with self._errors():
                    conn.execute(f"SELECT pg_advisory_unlock({_LOCK_KEY})", (session_id,))
        finally:
            self._lock_pool.putconn(conn)  # a broken connection is discarded (its lock with it)

    def _acquire(self, conn: psycopg.Connection[Any], session_id: str, wait: float, timeout: float) -> None:
        """Take the advisory lock on ``conn``, waiting at most ``wait`` seconds (one round trip)."""
        with self._errors():
            try:
                with conn.pipeline():
                    conn.execute(
                        "SELECT set_config('lock_timeout', %s, false)", (f"{max(1, round(wait * 1000))}ms",)
                    )
                    conn.execute(f"SELECT pg_advisory_lock({_LOCK_KEY})", (session_id,))
            except psycopg.errors.LockNotAvailable:
                raise busy(session_id, timeout) from None

    # -- calls ----------------------------------------------------------------------------

    def get_call(self, session_id: str, call_id: str) -> CallRecord | None:
        with self._connection() as conn:
            row = conn.execute(
                f"SELECT {_CALL_COLUMNS} FROM toolpen_calls WHERE session_id = %s AND call_id = %s",
                (session_id, call_id),
            ).fetchone()
        return None if row is None else CallRecord.model_validate(row)

    # -- primitives -----------------------------------------------------------------------

    def _insert_session(
        self, session_id: str, app_name: str, user_id: str, delta: StateDelta, now: float
    ) -> bool:
        with self._transaction() as conn:
            inserted = conn.execute(
                "INSERT INTO toolpen_sessions (id, app_name, user_id, create_time, last_update_time)"
                " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                (session_id, app_name, user_id, now, now),
            ).rowcount
            if inserted:
                _merge(conn, session_id, app_name, user_id, delta)
            return bool(inserted)

    def _begin_call(self, record: CallRecord) -> CallRecord | None:
        with self._transaction() as conn:
            _lock_session_row(conn, record.session_id)
            inserted = conn.execute(
                "INSERT INTO toolpen_calls (session_id, call_id, tool, args, status, started_at)"
                " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (session_id, call_id) DO NOTHING",
                (
                    record.session_id,
                    record.call_id,
                    record.tool,
                    _dumps(record.args),
                    record.status,
                    record.started_at,
                ),
            ).rowcount
            if inserted:
                return None
            row = conn.execute(
                f"SELECT {_CALL_COLUMNS} FROM toolpen_calls WHERE session_id = %s AND call_id = %s",
                (record.session_id, record.call_id),
            ).fetchone()
            return CallRecord.model_validate(row)

    def _commit_call(
        self,
        session_id: str,
        call_id: str,
        delta: StateDelta,
        events: list[Event],
        result: dict[str, Any],
        now: float,
    ) -> None:
        with self._transaction() as conn:
            owner = conn.execute(
                "UPDATE toolpen_sessions SET last_update_time = %s WHERE id = %s RETURNING app_name, user_id",
                (now, session_id),
            ).fetchone()
            if owner is None:
                raise NotFound(f"session {session_id!r} not found")
            _finish(conn, session_id, call_id, "succeeded", result, now)
            _merge(conn, session_id, owner["app_name"], owner["user_id"], delta)
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO toolpen_events (session_id, data) VALUES (%s, %s)",
                    [(session_id, _dumps(event.to_dict())) for event in events],
                )

    def _fail_call(self, session_id: str, call_id: str, result: dict[str, Any], now: float) -> None:
        with self._transaction() as conn:
            _lock_session_row(conn, session_id)
            _finish(conn, session_id, call_id, "failed", result, now)


# -- inside a transaction -----------------------------------------------------------------


def _lock_session_row(conn: psycopg.Connection[Any], session_id: str) -> None:
    """Lock the session's row until the transaction ends (a concurrent delete waits); or NotFound."""
    if (
        conn.execute("SELECT 1 FROM toolpen_sessions WHERE id = %s FOR UPDATE", (session_id,)).fetchone()
        is None
    ):
        raise NotFound(f"session {session_id!r} not found")


def _finish(
    conn: psycopg.Connection[Any],
    session_id: str,
    call_id: str,
    status: CallStatus,
    result: dict[str, Any],
    now: float,
) -> None:
    updated = conn.execute(
        "UPDATE toolpen_calls SET status = %s, result = %s, finished_at = %s"
        " WHERE session_id = %s AND call_id = %s AND status = 'started'",
        (status, _dumps(result), now, session_id, call_id),
    ).rowcount
    if updated:
        return
    exists = conn.execute(
        "SELECT 1 FROM toolpen_calls WHERE session_id = %s AND call_id = %s", (session_id, call_id)
    ).fetchone()
    raise already_finished(session_id, call_id) if exists else never_begun(session_id, call_id)


def _merge(
    conn: psycopg.Connection[Any], session_id: str, app_name: str, user_id: str, delta: StateDelta
) -> None:
    for (app, user, session), part in scoped_parts(delta, app_name, user_id, session_id):
        conn.execute(
            _MERGE_STATE,
            {"app": app, "user": user, "session": session, "set": _dumps(part.set), "deleted": part.deleted},
        )
