"""``sqlite:///path``: the embedded default store, safe for several threads and processes.

Data: WAL mode (readers never block the writer), a busy timeout, a pool of connections,
JSON as TEXT. Every write is one ``BEGIN IMMEDIATE`` transaction, so a commit that fails
leaves the file as it was. The schema is created on open and versioned with
``PRAGMA user_version``.

Session locks: ``fcntl.flock`` on one lock file per session, in ``<db>.locks/`` next to the
database. A lock table with owners and expiry would need heartbeats, or a crashed holder
blocks the session until its lease expires (and a slow call outliving its lease loses
updates); a ``BEGIN IMMEDIATE`` held across the call would serialize every session of the
file. ``flock`` is released by the kernel when its holder dies, is per open file (so it
also excludes threads of one process), and costs no database traffic. Waiting polls with a
short backoff up to the timeout.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from runtime.errors import NotFound, ToolpenError
from runtime.session import CallRecord, CallStatus, Event, Session, SessionSummary, StateDelta, encode_json
from runtime.store.base import LOCK_TIMEOUT, Store, already_finished, never_begun, poll_lock, scoped_parts

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    create_time REAL NOT NULL,
    last_update_time REAL NOT NULL
);
CREATE INDEX sessions_by_owner ON sessions (app_name, user_id);
-- one row per scope: app (app, '', ''), user (app, user, ''), session (app, user, id)
CREATE TABLE states (
    app_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (app_name, user_id, session_id)
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX events_by_session ON events (session_id, seq);
CREATE TABLE calls (
    session_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    args TEXT NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    started_at REAL NOT NULL,
    finished_at REAL,
    PRIMARY KEY (session_id, call_id)
);
"""

_CALL_COLUMNS = "session_id, call_id, tool, args, status, result, started_at, finished_at"


def _dumps(value: Any) -> str:
    return encode_json(value, "a value")


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _record(row: sqlite3.Row) -> CallRecord:
    data = dict(row)
    data["args"] = json.loads(data["args"])
    data["result"] = None if data["result"] is None else json.loads(data["result"])
    return CallRecord.model_validate(data)


class SqliteStore(Store):
    """Sessions in one SQLite file (created with its folder if missing)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self._busy_timeout = busy_timeout
        self._lock_dir = self.path.with_name(self.path.name + ".locks")
        self._idle: list[sqlite3.Connection] = []
        self._pool_lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_dir.mkdir(exist_ok=True)
        self._create_schema()

    # -- connections and transactions -----------------------------------------------------

    @contextmanager
    def _transaction(self, begin: str = "BEGIN IMMEDIATE") -> Iterator[sqlite3.Connection]:
        """One transaction on an idle connection: committed, or rolled back on any error.

        SQLite's own errors (a locked or damaged file) become a ``ToolpenError``.
        """
        try:
            conn = self._checkout()
        except sqlite3.Error as exc:
            raise self._store_error(exc) from exc
        try:
            conn.execute(begin)
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._store_error(exc) from exc
        finally:
            with self._pool_lock:
                self._idle.append(conn)

    def _checkout(self) -> sqlite3.Connection:
        with self._pool_lock:
            if self._idle:
                return self._idle.pop()
        conn = sqlite3.connect(
            self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False
        )
        try:
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    def _store_error(self, exc: sqlite3.Error) -> ToolpenError:
        return ToolpenError(f"session store {self.path.name}: {exc}")

    def _create_schema(self) -> None:
        with self._transaction() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise ToolpenError(
                    f"{self.path.name} has store schema version {version}; this toolpen reads version {SCHEMA_VERSION}"
                )

    def close(self) -> None:
        with self._pool_lock:
            for conn in self._idle:
                conn.close()
            self._idle.clear()

    # -- sessions -------------------------------------------------------------------------

    def get_session(self, session_id: str) -> Session | None:
        with self._transaction("BEGIN") as conn:
            meta = conn.execute(
                "SELECT app_name, user_id, last_update_time FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if meta is None:
                return None
            rows = conn.execute(
                "SELECT state FROM states WHERE app_name = ? AND user_id IN ('', ?) AND session_id IN ('', ?)"
                " ORDER BY user_id, session_id",
                (meta["app_name"], meta["user_id"], session_id),
            ).fetchall()
            events = conn.execute(
                "SELECT data FROM events WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        state: dict[str, Any] = {}
        for row in rows:  # app, then user, then session
            state.update(json.loads(row["state"]))
        return Session(
            id=session_id,
            state=state,
            events=[Event.model_validate_json(row["data"]) for row in events],
            **dict(meta),
        )

    def list_sessions(self, app_name: str | None = None, user_id: str | None = None) -> list[SessionSummary]:
        with self._transaction("BEGIN") as conn:
            rows = conn.execute(
                "SELECT s.id, s.app_name, s.user_id, s.last_update_time,"
                " (SELECT count(*) FROM events e WHERE e.session_id = s.id) AS event_count"
                " FROM sessions s WHERE (?1 IS NULL OR s.app_name = ?1) AND (?2 IS NULL OR s.user_id = ?2)"
                " ORDER BY s.last_update_time DESC",
                (app_name, user_id),
            ).fetchall()
        return [SessionSummary.model_validate(dict(row)) for row in rows]

    def delete_session(self, session_id: str) -> bool:
        with self._transaction() as conn:
            meta = conn.execute(
                "SELECT app_name, user_id FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if meta is None:
                return False
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))
            conn.execute(
                "DELETE FROM states WHERE app_name = ? AND user_id = ? AND session_id = ?",
                (meta["app_name"], meta["user_id"], session_id),
            )
            conn.execute("DELETE FROM events WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM calls WHERE session_id = ?", (session_id,))
            return True

    # -- locking --------------------------------------------------------------------------

    @contextmanager
    def lock(self, session_id: str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
        name = hashlib.sha256(session_id.encode()).hexdigest() + ".lock"
        fd = os.open(self._lock_dir / name, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            poll_lock(lambda: _try_flock(fd), session_id, timeout)
            yield
        finally:
            os.close(fd)  # releases the flock

    # -- calls ----------------------------------------------------------------------------

    def get_call(self, session_id: str, call_id: str) -> CallRecord | None:
        with self._transaction("BEGIN") as conn:
            row = conn.execute(
                f"SELECT {_CALL_COLUMNS} FROM calls WHERE session_id = ? AND call_id = ?",
                (session_id, call_id),
            ).fetchone()
        return None if row is None else _record(row)

    # -- primitives -----------------------------------------------------------------------

    def _insert_session(
        self, session_id: str, app_name: str, user_id: str, delta: StateDelta, now: float
    ) -> bool:
        with self._transaction() as conn:
            inserted = conn.execute(
                "INSERT INTO sessions (id, app_name, user_id, create_time, last_update_time)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (session_id, app_name, user_id, now, now),
            ).rowcount
            if inserted:
                self._apply(conn, session_id, app_name, user_id, delta)
            return bool(inserted)

    def _begin_call(self, record: CallRecord) -> CallRecord | None:
        with self._transaction() as conn:
            self._session_owner(conn, record.session_id)
            row = conn.execute(
                f"SELECT {_CALL_COLUMNS} FROM calls WHERE session_id = ? AND call_id = ?",
                (record.session_id, record.call_id),
            ).fetchone()
            if row is not None:
                return _record(row)
            conn.execute(
                "INSERT INTO calls (session_id, call_id, tool, args, status, started_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    record.session_id,
                    record.call_id,
                    record.tool,
                    _dumps(record.args),
                    record.status,
                    record.started_at,
                ),
            )
            return None

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
            app_name, user_id = self._session_owner(conn, session_id)
            self._finish(conn, session_id, call_id, "succeeded", result, now)
            self._apply(conn, session_id, app_name, user_id, delta)
            conn.executemany(
                "INSERT INTO events (session_id, data) VALUES (?, ?)",
                [(session_id, _dumps(event.to_dict())) for event in events],
            )
            conn.execute("UPDATE sessions SET last_update_time = ? WHERE id = ?", (now, session_id))

    def _fail_call(self, session_id: str, call_id: str, result: dict[str, Any], now: float) -> None:
        with self._transaction() as conn:
            self._session_owner(conn, session_id)
            self._finish(conn, session_id, call_id, "failed", result, now)

    # -- inside a transaction -------------------------------------------------------------

    @staticmethod
    def _session_owner(conn: sqlite3.Connection, session_id: str) -> tuple[str, str]:
        row = conn.execute("SELECT app_name, user_id FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise NotFound(f"session {session_id!r} not found")
        return row["app_name"], row["user_id"]

    @staticmethod
    def _finish(
        conn: sqlite3.Connection,
        session_id: str,
        call_id: str,
        status: CallStatus,
        result: dict[str, Any],
        now: float,
    ) -> None:
        row = conn.execute(
            "SELECT status FROM calls WHERE session_id = ? AND call_id = ?", (session_id, call_id)
        ).fetchone()
        if row is None:
            raise never_begun(session_id, call_id)
        if row["status"] != "started":
            raise already_finished(session_id, call_id)
        conn.execute(
            "UPDATE calls SET status = ?, result = ?, finished_at = ? WHERE session_id = ? AND call_id = ?",
            (status, _dumps(result), now, session_id, call_id),
        )

    @staticmethod
    def _apply(
        conn: sqlite3.Connection, session_id: str, app_name: str, user_id: str, delta: StateDelta
    ) -> None:
        for owner, part in scoped_parts(delta, app_name, user_id, session_id):
            row = conn.execute(
                "SELECT state FROM states WHERE app_name = ? AND user_id = ? AND session_id = ?", owner
            ).fetchone()
            state = part.apply_to(json.loads(row["state"]) if row else {})
            conn.execute(
                "INSERT INTO states (app_name, user_id, session_id, state) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (app_name, user_id, session_id) DO UPDATE SET state = excluded.state",
                (*owner, _dumps(state)),
            )
