"""``postgresql://``: sessions in PostgreSQL (psycopg 3), shared by processes and machines.

Data: the tables of ``runtime/store/_sql.py`` (``toolpen_state_keys``: one row per scope owner
and key, its value ``jsonb``; events, arguments and results ``json``: the text is kept as written) in the
connection's current schema (``?options=-csearch_path%3Dname`` in the URL picks another),
created on first open; ``?pool_size=N&lock_connections=M`` size the two connection pools
(10 and 50: at most M sessions locked or waiting at once per process), and
``prepared_statements=off`` suits PgBouncer before 1.21 in transaction mode; ``toolpen_schema`` holds their version. Every write is one transaction
that takes the session's row lock first; a delta writes the rows of the keys it sets and
deletes, so concurrent sessions writing ``app:``/``user:`` keys merge key by key. A read is one
statement, hence one snapshot. Schema version 1 kept one ``jsonb`` row per scope
(``toolpen_states``): `toolpen store migrate` spreads its keys over rows of their own. ``jsonb`` cannot hold the
character U+0000: such a value is refused as invalid state.

Session locks: ``pg_advisory_xact_lock(hashtextextended(schema || ':' || session_id, 0))`` in a
transaction held open on a connection of its own for the block, then rolled back. A
transaction-scoped lock works behind PgBouncer in transaction mode (the server connection is
the client's for exactly that transaction; a session-level lock would stay on a server
connection PgBouncer hands to others), and the server releases it when the transaction or
its connection ends, so a holder that dies frees it at once. Waiting polls
``pg_try_advisory_xact_lock`` with a short backoff, outside any transaction between tries: a
waiter holds no server connection (waiting in the server's queue, each waiter's open
transaction pinned a PgBouncer server connection until the holder had none left for its
commit). The lock's connection is idle in a transaction while the call runs: keep
``idle_in_transaction_session_timeout`` above the calls' wall time. Two session ids whose 64-bit hashes collide share one lock: they only wait
for each other. The locks of shared scopes (``lock_scopes``) are advisory locks too, hashed
with another seed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import DictRow, dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from runtime._session import Session
from runtime.store._base import (
    LOCK_TIMEOUT,
    StateOwner,
    StoreSize,
    busy,
    poll_lock,
    scope_label,
    scope_lock_name,
    session_label,
)
from runtime.store._migrations import SchemaVersion, check_version, steps_between
from runtime.store._sql import (
    INDEXES,
    SCOPE_ROWS,
    STATE_KEYS,
    STATE_ROW,
    STATE_SCOPES,
    Connection,
    SqlStore,
    in_style,
    tables,
)
from runtime.store._value_cache import CACHED_FROM, ScopeCache, ValueCache
from sandbox.common.errors import InvalidArguments, InvalidState, StoreError

SCHEMA_VERSION = 3

_TYPES = {
    "real": "double precision",
    "json": "json",
    "state_json": "jsonb",
    "serial": "bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
}

_FROM_VERSION_1 = (
    STATE_KEYS.format(**_TYPES)
    + """
INSERT INTO toolpen_state_keys (app_name, user_id, session_id, key, value, size, rev)
SELECT s.app_name, s.user_id, s.session_id, j.key, j.value, octet_length(j.value::text),
    (random() * 4e18)::bigint
FROM toolpen_states s, jsonb_each(s.state) j;
DROP TABLE toolpen_states;
"""
)
"""Version 1 kept each scope's state as one ``jsonb`` row: its keys become rows of their own."""

_FROM_VERSION_2 = (
    STATE_SCOPES
    + """
INSERT INTO toolpen_state_scopes (app_name, user_id, session_id, version)
SELECT app_name, user_id, session_id, (random() * 4e18)::bigint
FROM (SELECT DISTINCT app_name, user_id, session_id FROM toolpen_state_keys) AS scopes;
"""
)
"""Version 2 had no scope versions: each scope with keys gets one."""

MIGRATIONS = {1: _FROM_VERSION_1, 2: _FROM_VERSION_2}
"""The statements leading from each version to the next."""

POOL_SIZE = 10
"""Connections of one store for reads and writes (each held for one statement or transaction)."""

LOCK_CONNECTIONS = 50
"""Connections of one store for session locks: at most this many held or awaited at once."""

_SCHEMA = "CREATE TABLE toolpen_schema (version integer NOT NULL);" + tables(**_TYPES) + INDEXES

# one 64-bit key per (schema, session): a 32-bit hash would let a tenant search offline for an
# id whose lock collides with another tenant's session and hold it; the seed keeps session locks
# and shared-scope locks apart
_LOCK_KEY = "hashtextextended(current_schema() || ':' || %s, %s)"
_SESSION_LOCKS = 0
_SCOPE_LOCKS = 1

_GET_SESSION = """
SELECT s.app_name, s.user_id, s.last_update_time{events} FROM toolpen_sessions s WHERE s.id = %s
"""
_EVENTS_COLUMN = """,
    ARRAY(SELECT e.data FROM toolpen_events e WHERE e.session_id = s.id ORDER BY e.seq) AS events"""
_GET_SESSION_WITH_EVENTS = _GET_SESSION.format(events=_EVENTS_COLUMN)
_GET_SESSION_ALONE = _GET_SESSION.format(events="")
_SCOPE_ROWS = f"""
SELECT ARRAY(SELECT json_build_array({STATE_ROW.format(cached=CACHED_FROM)}, CASE WHEN size < %s THEN value END)
    {in_style(SCOPE_ROWS, "%s")}) AS part
"""


@dataclass(frozen=True)
class PoolOptions:
    """toolpen's own parameters of a PostgreSQL URL (taken out before libpq sees it)."""

    pool_size: int = POOL_SIZE
    lock_connections: int = LOCK_CONNECTIONS
    prepared_statements: bool = True
    """``prepared_statements=off`` for PgBouncer before 1.21 in transaction mode, which cannot
    keep server-side prepared statements across transactions."""


POOL_OPTIONS = ("pool_size", "lock_connections", "prepared_statements")


def split_pool_options(url: str) -> tuple[str, PoolOptions]:
    """The URL without toolpen's own parameters (``?pool_size=10&lock_connections=50&
    prepared_statements=on`` by default), and their values."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    given = {name: value for name, value in pairs if name in POOL_OPTIONS}
    if not given:
        return url, PoolOptions()
    sizes = {}
    for name in POOL_OPTIONS[:2]:
        value = given.get(name, str(getattr(PoolOptions, name)))
        if not value.isdigit() or int(value) < 1:
            raise InvalidArguments(f"the store URL's {name} must be a positive integer, not {value!r}")
        sizes[name] = int(value)
    prepared = given.get("prepared_statements", "on")
    if prepared not in ("on", "off"):
        raise InvalidArguments(f"the store URL's prepared_statements is on or off, not {prepared!r}")
    rest = urlencode([(name, value) for name, value in pairs if name not in POOL_OPTIONS])
    return urlunsplit(parts._replace(query=rest)), PoolOptions(**sizes, prepared_statements=prepared == "on")


def _pool(
    url: str, options: PoolOptions, *, min_size: int, max_size: int
) -> ConnectionPool[psycopg.Connection[DictRow]]:
    """A pool of autocommit connections whose rows are dicts."""
    kwargs: dict[str, Any] = {"autocommit": True, "row_factory": dict_row}
    if not options.prepared_statements:
        kwargs["prepare_threshold"] = None
    return ConnectionPool(
        url,
        connection_class=psycopg.Connection[DictRow],
        kwargs=kwargs,
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


class PostgresStore(SqlStore):
    """Sessions in a PostgreSQL database, named by a libpq URL."""

    placeholder = "%s"
    row_lock = " FOR UPDATE"

    def __init__(self, url: str, *, migrate: bool = False) -> None:
        self.url = url
        url, options = split_pool_options(url)
        self._name = _display_name(url)
        self._values = ValueCache()
        self._scopes = ScopeCache()
        with self._errors(), psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            self.schema = self._create_schema(conn, migrate)
        self._pool = _pool(url, options, min_size=1, max_size=options.pool_size)
        self._lock_pool = _pool(url, options, min_size=0, max_size=options.lock_connections)

    # -- connections and transactions -----------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """PostgreSQL's errors as a ``ToolpenError`` (``InvalidState`` for a value it refuses)."""
        try:
            yield
        except psycopg.errors.UntranslatableCharacter as exc:
            raise InvalidState(f"a value cannot be stored in PostgreSQL: {exc}") from None
        except psycopg.Error as exc:
            raise StoreError(f"session store {self._name}: {exc}") from exc

    @contextmanager
    def _reading(self) -> Iterator[psycopg.Connection[DictRow]]:
        with self._errors(), self._pool.connection() as conn:
            yield conn

    @contextmanager
    def _transaction(self, timeout: float | None = None) -> Iterator[psycopg.Connection[DictRow]]:
        """One transaction: committed, or rolled back on any error; ``timeout`` bounds each of its
        statements (``statement_timeout``, waiting for row locks included)."""
        with self._reading() as conn, conn.transaction():
            if timeout is not None:
                conn.execute(f"SET LOCAL statement_timeout = {max(int(timeout * 1000), 1)}")
            yield conn

    def _create_schema(self, conn: psycopg.Connection[Any], migrate: bool) -> SchemaVersion:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext('toolpen schema ' || current_schema()))")
            if conn.execute("SELECT to_regclass('toolpen_schema')").fetchone() == (None,):
                conn.execute(_SCHEMA)
                conn.execute("INSERT INTO toolpen_schema VALUES (%s)", (SCHEMA_VERSION,))
                return SchemaVersion(None, SCHEMA_VERSION)
            row = conn.execute("SELECT version FROM toolpen_schema").fetchone()
            found = row[0] if row else 0
            check_version(self._name, found, SCHEMA_VERSION, migrate=migrate)
            for statements in steps_between(self._name, found, SCHEMA_VERSION, MIGRATIONS):
                conn.execute(statements)
            conn.execute("UPDATE toolpen_schema SET version = %s", (SCHEMA_VERSION,))
        return SchemaVersion(found, SCHEMA_VERSION)

    def close(self) -> None:
        self._pool.close()
        self._lock_pool.close()

    def size(self) -> StoreSize:
        with self._reading() as conn:
            row = conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS total FROM pg_class c"
                " WHERE c.relkind = 'r' AND c.relname LIKE 'toolpen%%'"
                " AND c.relnamespace = current_schema()::regnamespace"
            ).fetchone()
        return StoreSize(int(row["total"]) if row else 0, "toolpen's tables with their indexes and TOAST")

    # -- what PostgreSQL does its own way -------------------------------------------------

    def _json(self, value: Any) -> Any:
        return value  # psycopg decodes json and jsonb

    def _decoded(self, values: Sequence[Any]) -> list[Any]:
        return list(values)  # decoded with the row (a JSON array)

    def _scope_rows(self, conn: Connection, owner: StateOwner, read_below: int) -> list[Any]:
        row = conn.execute(_SCOPE_ROWS, (read_below, *owner)).fetchone()
        return cast(list[Any], row["part"])  # decoded with the row: one JSON array per state row

    def _get_session(self, session_id: str, events: bool) -> Session | None:
        statement = _GET_SESSION_WITH_EVENTS if events else _GET_SESSION_ALONE
        with self._reading() as conn, conn.transaction():  # one snapshot
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            row = conn.execute(statement, (session_id,)).fetchone()
            if row is None:
                return None
            state = self._read_state(conn, row["app_name"], row["user_id"], session_id)
        return self._session(session_id, row, state, row["events"] if events else [])

    def lock(self, session_id: str, timeout: float = LOCK_TIMEOUT) -> AbstractContextManager[None]:
        return self._advisory(session_id, _SESSION_LOCKS, session_label(session_id), timeout)

    def _lock_scope(self, owner: StateOwner, timeout: float) -> AbstractContextManager[None]:
        return self._advisory(scope_lock_name(owner), _SCOPE_LOCKS, scope_label(owner), timeout)

    @contextmanager
    def _advisory(self, name: str, seed: int, label: str, timeout: float) -> Iterator[None]:
        """Hold the advisory lock of ``name`` in the key space ``seed``: ``pg_advisory_xact_lock``
        in a transaction of its own, on a connection of its own, rolled back at the end."""
        deadline = time.monotonic() + timeout
        with self._errors():
            try:
                conn = self._lock_pool.getconn(timeout=timeout)
            except PoolTimeout:
                raise busy(label, timeout) from None
        try:
            self._acquire(conn, (name, seed), max(deadline - time.monotonic(), 0.001), label, timeout)
            yield
        finally:
            with suppress(psycopg.Error):  # a broken connection: the server ended it
                conn.execute("ROLLBACK")  # ends the lock's transaction, and so the lock
            self._lock_pool.putconn(conn)  # a broken connection is discarded

    def _acquire(
        self, conn: psycopg.Connection[Any], key: tuple[str, int], wait: float, label: str, timeout: float
    ) -> None:
        """Take the lock in a transaction opened on ``conn``, trying without waiting for up to
        ``wait`` seconds: between tries no transaction is open, so a waiter holds no server
        connection (behind PgBouncer each open transaction pins one, and waiters pinning them all
        left none for the holder's commit)."""

        def try_once() -> bool:
            with self._errors(), conn.pipeline():
                conn.execute("BEGIN")
                taken = conn.execute(f"SELECT pg_try_advisory_xact_lock({_LOCK_KEY}) AS taken", key)
            if cast(dict[str, Any], taken.fetchone())["taken"]:  # a SELECT of one value: one row
                return True
            with self._errors():
                conn.execute("ROLLBACK")
            return False

        poll_lock(try_once, label, wait)
