"""``sqlite:///path``: the embedded default store, safe for several threads and processes.

Data: the tables of ``runtime/store/_sql.py`` (JSON as TEXT) in WAL mode (readers never block
the writer), a busy timeout, a pool of connections. Every write is one ``BEGIN IMMEDIATE``
transaction, so a commit that fails leaves the file as it was. The schema is created on open
and versioned with ``PRAGMA user_version``; `toolpen store migrate` (``migrate=True``) brings an
older file to version 4 in one transaction (``runtime/store/_migrations.py``): version 1 had
the tables without the ``toolpen_`` prefix, version 2 one JSON row per scope
(``toolpen_states``), whose keys version 3 spreads over ``toolpen_state_keys``, and version 4
gives each scope a version (``toolpen_state_scopes``).

Session locks: ``fcntl.flock`` on one lock file per session, in ``<db>.locks/`` next to the
database (and one per shared scope, ``scope-*.lock``, for ``lock_scopes``). A lock table with owners and expiry would need heartbeats, or a crashed holder
blocks the session until its lease expires (and a slow call outliving its lease loses
updates); a ``BEGIN IMMEDIATE`` held across the call would serialize every session of the
file. ``flock`` is released by the kernel when its holder dies, is per open file (so it
also excludes threads of one process), and costs no database traffic. Waiting polls with a
short backoff up to the timeout. The holder removes its lock file when done, so the folder
holds files only for locks held (or left by a holder that died); a waiter that locked a file
removed meanwhile sees that the path no longer names it and locks the new one.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import itertools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any, cast

from runtime._session import Session
from runtime.store._base import (
    LOCK_TIMEOUT,
    StateOwner,
    StoreSize,
    poll_lock,
    scope_label,
    scope_lock_name,
    session_label,
)
from runtime.store._migrations import SchemaVersion, check_version, steps_between
from runtime.store._sql import (
    GET_EVENTS,
    INDEXES,
    SCOPE_ROWS,
    STATE_KEYS,
    STATE_ROW,
    STATE_SCOPES,
    Connection,
    SqlStore,
    tables,
)
from runtime.store._value_cache import CACHED_FROM, ScopeCache, ValueCache
from sandbox.common.errors import StoreError

SCHEMA_VERSION = 4

_TYPES = {"real": "REAL", "json": "TEXT", "state_json": "TEXT", "serial": "INTEGER PRIMARY KEY AUTOINCREMENT"}

_SCHEMA = tables(**_TYPES) + INDEXES

_FROM_VERSION_1 = f"""
DROP INDEX sessions_by_owner;
DROP INDEX events_by_session;
ALTER TABLE sessions RENAME TO toolpen_sessions;
ALTER TABLE states RENAME TO toolpen_states;
ALTER TABLE events RENAME TO toolpen_events;
ALTER TABLE calls RENAME TO toolpen_calls;
{INDEXES}
"""
"""Version 1 had the same tables without the ``toolpen_`` prefix."""

_FROM_VERSION_2 = (
    STATE_KEYS.format(**_TYPES)
    + """
INSERT INTO toolpen_state_keys (app_name, user_id, session_id, key, value, size, rev)
SELECT app_name, user_id, session_id, key, text, length(CAST(text AS BLOB)), random()
FROM (
    SELECT s.rowid AS row, j.id AS id, s.app_name, s.user_id, s.session_id, j.key,
        CASE j.type
            WHEN 'object' THEN j.value WHEN 'array' THEN j.value
            WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN 'null'
            ELSE json_quote(j.value)
        END AS text
    FROM toolpen_states s, json_each(s.state) j
)
ORDER BY row, id;
DROP TABLE toolpen_states;
"""
)
"""Version 2 kept each scope's state as one JSON row: its keys become rows of their own, in order."""

_FROM_VERSION_3 = (
    STATE_SCOPES
    + """
INSERT INTO toolpen_state_scopes (app_name, user_id, session_id, version)
SELECT app_name, user_id, session_id, random() & 4611686018427387903
FROM (SELECT DISTINCT app_name, user_id, session_id FROM toolpen_state_keys);
"""
)
"""Version 3 had no scope versions: each scope with keys gets one."""

MIGRATIONS = {1: _FROM_VERSION_1, 2: _FROM_VERSION_2, 3: _FROM_VERSION_3}
"""The script leading from each version to the next."""


_SCOPE_ROWS = f"SELECT {STATE_ROW.format(cached=CACHED_FROM)}, CASE WHEN size < ? THEN value ELSE 'null' END {SCOPE_ROWS}"


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _names(path: Path, fd: int) -> bool:
    """``path`` is the file open as ``fd`` (not removed, nor replaced by another)."""
    try:
        at_path = os.stat(path)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (at_path.st_dev, at_path.st_ino) == (opened.st_dev, opened.st_ino)


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Each statement of ``script`` in the current transaction (``executescript`` would commit)."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


class SqliteStore(SqlStore):
    """Sessions in one SQLite file (created with its folder if missing)."""

    def __init__(
        self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0, migrate: bool = False
    ) -> None:
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self._busy_timeout = busy_timeout
        self._lock_dir = self.path.with_name(self.path.name + ".locks")
        self._idle: list[sqlite3.Connection] = []
        self._pool_lock = threading.Lock()
        self._values = ValueCache()
        self._scopes = ScopeCache()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_dir.mkdir(exist_ok=True)
        self.schema = self._create_schema(migrate)

    # -- connections and transactions -----------------------------------------------------

    @contextmanager
    def _transaction(
        self, timeout: float | None = None, begin: str = "BEGIN IMMEDIATE"
    ) -> Iterator[sqlite3.Connection]:
        """One transaction on an idle connection: committed, or rolled back on any error.

        SQLite's own errors (a locked or damaged file) become a ``ToolpenError``. ``timeout``
        bounds the wait for the file's write lock (else the busy timeout).
        """
        try:
            conn = self._checkout()
        except sqlite3.Error as exc:
            raise self._store_error(exc) from exc
        try:
            if timeout is not None:
                conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
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
            if timeout is not None:
                with suppress(sqlite3.Error):
                    conn.execute(f"PRAGMA busy_timeout = {int(self._busy_timeout * 1000)}")
            with self._pool_lock:
                self._idle.append(conn)

    def _reading(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._transaction(begin="BEGIN")

    def _checkout(self) -> sqlite3.Connection:
        with self._pool_lock:
            if self._idle:
                return self._idle.pop()
        conn = sqlite3.connect(
            self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False
        )
        try:
            conn.row_factory = sqlite3.Row
            self._use_wal(conn)
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    def _use_wal(self, conn: sqlite3.Connection) -> None:
        """Switch the file to WAL mode, which it keeps: once, by whichever process opens it first.

        SQLite runs no busy handler for the switch (it needs the file to itself), so processes
        opening a new file at once retry it here, up to the busy timeout."""
        deadline = time.monotonic() + self._busy_timeout
        for attempt in itertools.count():
            if conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                return
            if time.monotonic() > deadline:
                raise sqlite3.OperationalError("database is locked (switching it to WAL mode)")
            if attempt:
                time.sleep(0.01)
            with suppress(sqlite3.OperationalError):
                conn.execute("PRAGMA journal_mode = WAL")

    def _store_error(self, exc: sqlite3.Error) -> StoreError:
        return StoreError(f"session store {self.path.name}: {exc}")

    def _create_schema(self, migrate: bool) -> SchemaVersion:
        with self._transaction() as conn:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                _run_script(conn, _SCHEMA)
            else:
                check_version(self.path.name, version, SCHEMA_VERSION, migrate=migrate)
                for script in steps_between(self.path.name, version, SCHEMA_VERSION, MIGRATIONS):
                    _run_script(conn, script)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        return SchemaVersion(version or None, SCHEMA_VERSION)

    def close(self) -> None:
        with self._pool_lock:
            for conn in self._idle:
                conn.close()
            self._idle.clear()

    def size(self) -> StoreSize:
        files = [self.path, self.path.with_name(self.path.name + "-wal")]
        return StoreSize(sum(f.stat().st_size for f in files if f.exists()), "the database file and its WAL")

    # -- what SQLite does its own way -----------------------------------------------------

    def _json(self, value: Any) -> Any:
        return json.loads(value)

    def _decoded(self, values: Sequence[Any]) -> list[Any]:
        """The JSON texts decoded at once: one ``json.loads`` of them all as an array."""
        return cast(list[Any], json.loads("[" + ",".join(values) + "]"))

    def _scope_rows(self, conn: Connection, owner: StateOwner, read_below: int) -> list[Any]:
        cursor = cast(sqlite3.Connection, conn).cursor()
        cursor.row_factory = None  # plain tuples
        return cursor.execute(_SCOPE_ROWS, (read_below, *owner)).fetchall()

    def _get_session(self, session_id: str, events: bool) -> Session | None:
        with self._reading() as conn:  # one snapshot
            meta = conn.execute(
                "SELECT app_name, user_id, last_update_time FROM toolpen_sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if meta is None:
                return None
            state = self._read_state(conn, meta["app_name"], meta["user_id"], session_id)
            events_read = self._run(conn, GET_EVENTS, (session_id,)).fetchall() if events else []
        return self._session(session_id, meta, state, [row["data"] for row in events_read])

    def lock(self, session_id: str, timeout: float = LOCK_TIMEOUT) -> AbstractContextManager[None]:
        name = hashlib.sha256(session_id.encode()).hexdigest() + ".lock"
        return self._flock(name, session_label(session_id), timeout)

    def _lock_scope(self, owner: StateOwner, timeout: float) -> AbstractContextManager[None]:
        name = "scope-" + hashlib.sha256(scope_lock_name(owner).encode()).hexdigest() + ".lock"
        return self._flock(name, scope_label(owner), timeout)

    @contextmanager
    def _flock(self, name: str, label: str, timeout: float) -> Iterator[None]:
        """Hold the flock of the file ``name``, and remove the file when done (while holding it).

        A waiter may have opened the file before its holder removed it, and then lock a file
        no longer at that path: so a lock counts only if the path still names the locked file;
        otherwise the waiter opens the path again."""
        path = self._lock_dir / name
        deadline = time.monotonic() + timeout
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                poll_lock(functools.partial(_try_flock, fd), label, max(deadline - time.monotonic(), 0.0))
            except BaseException:
                os.close(fd)
                raise
            if _names(path, fd):
                break
            os.close(fd)  # its holder removed it: lock the file at the path now
        try:
            yield
        finally:
            with suppress(FileNotFoundError):
                os.unlink(path)
            os.close(fd)  # releases the flock
