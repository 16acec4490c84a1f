"""``redis://``: sessions in Redis (redis-py), shared by processes and machines.

Keys, under a prefix (``toolpen``; ``?prefix=name`` in the URL picks another)::

    P:session:ID     hash    app_name, user_id, create_time, last_update_time
    P:sessions       zset    session id -> last update time
    P:state:OWNER    hash    state key -> JSON value under CACHED_FROM bytes; OWNER is the JSON
                             [app, user, session] of a scope
    P:large:OWNER    hash    state key -> JSON value of CACHED_FROM bytes or more
    P:revs:OWNER     hash    state key (of P:large) -> "size:revision"
    P:version:OWNER  string  the scope's version: a random number, new with each commit changing it
    P:events:ID      list    JSON events, oldest first
    P:calls:ID       hash    call id -> JSON call record
    P:lock:ID        string  the session lock's token while it is held
    P:scope-lock:O   string  a shared scope's lock token (``lock_scopes``); O is the JSON [app, user]
    P:schema         string  the store schema version (``toolpen store migrate`` upgrades it)

With an ``idle_timeout``, every write of a session sets the time to live of its keys (its hash,
events, calls and session-scope state) to that timeout: Redis drops an idle session by itself;
its entry in ``P:sessions`` goes at the next sweep (``prune``), and a listing skips it meanwhile.

Every write is an optimistic transaction: WATCH the keys it reads, check them, then queue the
writes in one MULTI/EXEC (run again if a watched key changed), so a commit applies whole or not
at all. State keys are set and deleted one by one (HSET/HDEL), so ``app:`` and ``user:`` keys
written by concurrent sessions merge key by key. A read fetches the small values and the sizes
and revisions of the large ones, whose values come from the store's ``ValueCache`` unless
their revision changed (``runtime/store/_value_cache.py``), and none of a scope's hashes when the
store's ``ScopeCache`` holds the scope at its version; a store written before the large
values had a hash of their own keeps them in ``P:state``, read as they are. One server only: a transaction spans keys of
many sessions, which Redis Cluster would spread over slots.

Session locks: redis-py's ``Lock`` (``SET NX PX`` with a random token, released by a Lua
compare-and-delete) with a time to live of ``LOCK_TTL`` seconds, renewed every third of it by a
thread while the block runs. A holder that dies frees the session within ``LOCK_TTL``. If a live
holder stalls past its TTL and another takes the lock, its commit fails and changes nothing:
``commit_call`` watches the lock keys this thread holds for the session (its own, its user's and
app's scope locks) and checks their tokens. The locks of shared scopes work the same way.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import Any, TypeVar, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.client import Pipeline
from redis.lock import Lock
from redis.retry import Retry

from runtime._session import CallRecord, Event, Session, SessionSummary
from runtime._state import StateDelta, encode_json
from runtime.store._base import (
    LOCK_TIMEOUT,
    FinishedCall,
    StateOwner,
    Store,
    StoreSize,
    already_finished,
    never_begun,
    poll_lock,
    scope_label,
    scope_lock_name,
    scoped_parts,
    session_label,
    state_owners,
)
from runtime.store._migrations import SchemaVersion, check_version, steps_between
from runtime.store._value_cache import CACHED_FROM, MISSING, Part, ScopeCache, ValueCache, Written
from sandbox.common.errors import NotFound, StoreError, Timeout

SCHEMA_VERSION = 1

MIGRATIONS: dict[int, Callable[[redis.Redis], None]] = {}
"""The step leading from each version to the next (none yet: version 1 is the first)."""

LOCK_TTL = 3.0
"""Seconds a session lock outlives a holder that stopped renewing it (died or stalled)."""

T = TypeVar("T")


def split_prefix(url: str) -> tuple[str, str]:
    """The URL without its ``prefix`` query parameter, and the key prefix (``toolpen``)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((value for name, value in query if name == "prefix"), "toolpen")
    rest = urlencode([(name, value) for name, value in query if name != "prefix"])
    return urlunsplit(parts._replace(query=rest)), prefix


def _dumps(value: Any) -> str:
    return encode_json(value, "a value")


class RedisStore(Store):
    """Sessions in one Redis server, named by a redis-py URL."""

    def __init__(self, url: str, *, migrate: bool = False) -> None:
        self.url = url
        client_url, self._prefix = split_prefix(url)
        self._client_url = client_url
        parts = urlsplit(client_url)
        self._name = f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}{parts.path}"
        self._client = redis.Redis.from_url(
            client_url, decode_responses=True, socket_timeout=30, socket_connect_timeout=10
        )
        self._sessions_key = f"{self._prefix}:sessions"
        self._values = ValueCache()
        self._scopes = ScopeCache()
        self._held = threading.local()  # .tokens: session id -> lock token; .commits: a client
        self._commit_clients: list[redis.Redis] = []
        self._commit_lock = threading.Lock()
        with self._errors():
            self._client.ping()
            self.schema = self._check_schema(migrate)

    def _check_schema(self, migrate: bool) -> SchemaVersion:
        key = f"{self._prefix}:schema"
        found = cast(str | None, self._client.get(key))
        if found is None:  # empty, or written before versions were kept: version 1 either way
            written = bool(self._client.exists(self._sessions_key))
            self._client.set(key, SCHEMA_VERSION, nx=True)
            return SchemaVersion(SCHEMA_VERSION if written else None, SCHEMA_VERSION)
        version = int(found)
        check_version(self._name, version, SCHEMA_VERSION, migrate=migrate)
        for step in steps_between(self._name, version, SCHEMA_VERSION, MIGRATIONS):
            step(self._client)
        self._client.set(key, SCHEMA_VERSION)
        return SchemaVersion(version, SCHEMA_VERSION)

    def _key(self, kind: str, name: str) -> str:
        return f"{self._prefix}:{kind}:{name}"

    def _state_key(self, owner: StateOwner, kind: str = "state") -> str:
        """The hash of ``owner``'s small values (``state``), large ones (``large``) or the large
        ones' sizes and revisions (``revs``)."""
        return self._key(kind, json.dumps(list(owner), separators=(",", ":")))

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Redis's errors as a ``ToolpenError``."""
        try:
            yield
        except redis.RedisError as exc:
            raise StoreError(f"session store {self._name}: {exc}") from exc

    def _transaction(self, func: Callable[[Pipeline], T], *watched: str) -> T:
        """Run ``func`` (reads, then ``pipe.multi()`` and writes) until no watched key changed."""
        with self._errors():
            # redis-py's stubs say transaction() takes a func returning None and returns a list
            return cast(T, self._client.transaction(cast(Any, func), *watched, value_from_callable=True))

    def _bounded_transaction(self, func: Callable[[Pipeline], T], deadline: float | None, *watched: str) -> T:
        """``_transaction`` done by ``deadline`` (``time.monotonic()``) or failed with nothing
        stored: on a connection of this thread's own, without redis-py's retries (a retried
        ``EXEC`` would run without its ``WATCH``), whose socket timeout is the time left; a
        ``MULTI``/``EXEC`` whose reply does not come in time is dropped with its connection,
        and the server discards a transaction whose client is gone."""
        if deadline is None:
            return self._transaction(func, *watched)
        client = getattr(self._held, "commits", None)
        if client is None:
            client = self._held.commits = self._new_commit_client()
        with self._errors(), client.pipeline(transaction=True) as pipe:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StoreError(
                        f"session store {self._name}: the commit was not done by the call's deadline"
                    )
                connection = client.connection_pool.get_connection()
                try:
                    connection.connect()
                    _socket_timeout(connection, left)
                finally:
                    client.connection_pool.release(connection)
                try:
                    pipe.watch(*watched)
                    value = func(pipe)
                    pipe.execute()
                    return value
                except redis.WatchError:
                    continue

    def _new_commit_client(self) -> redis.Redis:
        """A client of one connection, without retries, for one thread's bounded commits (RESP3:
        redis-py then sets a new socket timeout on the reply parser too)."""
        client = redis.Redis(
            connection_pool=redis.ConnectionPool.from_url(
                self._client_url,
                decode_responses=True,
                socket_connect_timeout=10,
                max_connections=1,
                protocol=3,
            ),
            retry=Retry(NoBackoff(), 0),
        )
        with self._commit_lock:
            self._commit_clients.append(client)
        return client

    def close(self) -> None:
        self._client.close()
        with self._commit_lock:
            for client in self._commit_clients:
                client.close()
            self._commit_clients.clear()

    # -- sessions -------------------------------------------------------------------------

    def _get_session(self, session_id: str, events: bool) -> Session | None:
        meta_key = self._key("session", session_id)
        with self._errors():
            found = self._read_owner(self._client, session_id)
            if found is None:
                return None
            app_name, user_id = found
            owners = state_owners(app_name, user_id, session_id)
            versions = [self._state_key(owner, "version") for owner in owners]
            known = _versions(cast(list[str | None], self._client.mget(versions)))
            while True:  # until every scope is read, or held at the version read with the others
                held = [
                    self._scopes.holds(owner, version) for owner, version in zip(owners, known, strict=True)
                ]
                with self._client.pipeline(transaction=True) as pipe:  # one snapshot
                    pipe.hgetall(meta_key)
                    pipe.mget(versions)
                    for owner, cached in zip(owners, held, strict=True):
                        if not cached:
                            pipe.hgetall(self._state_key(owner))
                            pipe.hgetall(self._state_key(owner, "revs"))
                    if events:
                        pipe.lrange(self._key("events", session_id), 0, -1)
                    meta, texts, *hashes = pipe.execute()
                stored = hashes.pop() if events else []
                read = _versions(texts)
                if any(cached and now != then for cached, now, then in zip(held, read, known, strict=True)):
                    known = read  # a scope held changed meanwhile: read again
                    continue
                parts: list[tuple[StateOwner, int | None, Part | None]] = []
                for owner, version, cached in zip(owners, read, held, strict=True):
                    part = None
                    if not cached:
                        small, revs = hashes.pop(0), hashes.pop(0)
                        part = self._part(owner, version, small, revs)
                        if part is None:
                            break
                        if version is not None:
                            self._scopes.put(owner, version, *part)
                    parts.append((owner, version, part))
                state = self._scopes.merged(parts) if len(parts) == len(owners) else None
                if state is not None:
                    break
                known = read
        if (meta.get("app_name"), meta.get("user_id")) != (app_name, user_id):
            return self._get_session(session_id, events)  # deleted, or deleted and created again, meanwhile
        assert state is not None
        return Session.stored(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=state[0],
            state_sizes=state[1],
            events=[Event.model_validate_json(event) for event in stored],
            last_update_time=float(meta["last_update_time"]),
        )

    def _part(
        self, owner: StateOwner, version: int | None, small: dict[str, str], revs: dict[str, str]
    ) -> Part | None:
        """A scope's values and their sizes from its ``state`` and ``revs`` hashes at ``version``;
        its large values from the cache at their revisions, or read when it lacks them (None when
        the scope changed before they were read)."""
        texts = list(small.values())
        state = dict(zip(small, json.loads("[" + ",".join(texts) + "]"), strict=True))  # decoded at once
        sizes = dict(zip(small, map(len, map(str.encode, texts)), strict=True))
        if not revs:
            return state, sizes
        missing = []
        for key, size_rev in revs.items():
            size, rev = map(int, size_rev.split(":"))
            value = self._values.get(owner, key, rev)
            if value is MISSING:
                missing.append((key, size, rev))
            state[key], sizes[key] = value, size
        if missing:
            with self._client.pipeline(transaction=True) as pipe:
                pipe.get(self._state_key(owner, "version"))
                pipe.hmget(self._state_key(owner, "large"), [key for key, _, _ in missing])
                now, read = pipe.execute()
            if version is None or now != str(version):
                return None
            for (key, size, rev), text in zip(missing, read, strict=True):
                state[key] = json.loads(text)
                self._values.put(owner, key, rev, size, state[key])
        return state, sizes

    def _get_events(self, session_id: str) -> list[Event]:
        with self._errors():
            stored = cast(list[str], self._client.lrange(self._key("events", session_id), 0, -1))
        return [Event.model_validate_json(event) for event in stored]

    def list_sessions(self, app_name: str | None = None, user_id: str | None = None) -> list[SessionSummary]:
        fields = ("app_name", "user_id", "last_update_time")
        with self._errors():
            ids = cast(list[str], self._client.zrange(self._sessions_key, 0, -1))
            with self._client.pipeline(transaction=False) as pipe:
                for session_id in ids:
                    pipe.hmget(self._key("session", session_id), list(fields))
                    pipe.llen(self._key("events", session_id))
                replies = pipe.execute()
        summaries = [
            SessionSummary(id=session_id, event_count=count, **dict(zip(fields, meta, strict=True)))
            for session_id, meta, count in zip(ids, replies[::2], replies[1::2], strict=True)
            if meta[0] is not None  # deleted meanwhile
            and app_name in (None, meta[0])
            and user_id in (None, meta[1])
        ]
        return sorted(summaries, key=lambda s: s.last_update_time, reverse=True)

    def _delete_session(self, session_id: str, idle_before: float | None) -> bool:
        meta_key = self._key("session", session_id)

        def delete(pipe: Pipeline) -> bool:
            owner = self._read_owner(pipe, session_id)
            if owner is None:
                pipe.multi()
                pipe.zrem(self._sessions_key, session_id)  # expired by TTL: its listing entry goes too
                return False
            if (
                idle_before is not None
                and float(cast(str, pipe.hget(meta_key, "last_update_time"))) >= idle_before
            ):
                return False
            pipe.multi()
            pipe.delete(
                meta_key,
                self._key("events", session_id),
                self._key("calls", session_id),
                *self._state_keys((*owner, session_id)),
            )
            pipe.zrem(self._sessions_key, session_id)
            return True

        return self._transaction(delete, meta_key)

    def _idle_sessions(self, before: float) -> list[str]:
        with self._errors():
            return cast(list[str], self._client.zrangebyscore(self._sessions_key, "-inf", f"({before!r}"))

    def size(self) -> StoreSize:
        total = 0
        with self._errors():
            for key in self._client.scan_iter(match=f"{self._prefix}:*", count=1000):
                total += cast(int | None, self._client.memory_usage(key)) or 0
        return StoreSize(total, f"MEMORY USAGE of the {self._prefix}:* keys")

    def _session_keys(self, session_id: str, app_name: str, user_id: str) -> list[str]:
        """The keys that hold one session (what its time to live applies to)."""
        return [
            self._key("session", session_id),
            self._key("events", session_id),
            self._key("calls", session_id),
            *self._state_keys((app_name, user_id, session_id)),
        ]

    def _state_keys(self, owner: StateOwner) -> list[str]:
        """The hashes that hold ``owner``'s state."""
        return [self._state_key(owner, kind) for kind in ("state", "large", "revs", "version")]

    def _queue_expiry(self, pipe: Pipeline, session_id: str, app_name: str, user_id: str) -> None:
        """With an ``idle_timeout``: restart the time to live of the session's keys."""
        if self.idle_timeout is not None:
            milliseconds = max(int(self.idle_timeout * 1000), 1)
            for key in self._session_keys(session_id, app_name, user_id):
                pipe.pexpire(key, milliseconds)

    # -- locking --------------------------------------------------------------------------

    def _tokens(self) -> dict[str, str]:
        """The lock tokens this thread holds, by lock key."""
        if not hasattr(self._held, "tokens"):
            self._held.tokens = {}
        return self._held.tokens

    def lock(self, session_id: str, timeout: float = LOCK_TIMEOUT) -> AbstractContextManager[None]:
        return self._hold(self._key("lock", session_id), session_label(session_id), timeout)

    def _lock_scope(self, owner: StateOwner, timeout: float) -> AbstractContextManager[None]:
        return self._hold(self._scope_lock_key(owner), scope_label(owner), timeout)

    def _scope_lock_key(self, owner: StateOwner) -> str:
        return self._key("scope-lock", scope_lock_name(owner))

    @contextmanager
    def _hold(self, key: str, label: str, timeout: float) -> Iterator[None]:
        held = self._client.lock(key, timeout=LOCK_TTL, thread_local=False)
        with self._errors():
            poll_lock(lambda: held.acquire(blocking=False), label, timeout)
        stop = threading.Event()
        renewer = threading.Thread(target=_renew, args=(held, stop), name=f"renew {key}", daemon=True)
        renewer.start()
        self._tokens()[key] = held.local.token.decode()  # redis-py keeps it as bytes
        try:
            yield
        finally:
            del self._tokens()[key]
            stop.set()
            renewer.join()
            with self._errors(), suppress(redis.exceptions.LockNotOwnedError):
                held.release()  # one that expired meanwhile is no longer ours to release

    # -- calls ----------------------------------------------------------------------------

    def get_call(self, session_id: str, call_id: str) -> CallRecord | None:
        with self._errors():
            return self._read_call(self._client, session_id, call_id)

    # -- primitives -----------------------------------------------------------------------

    def _insert_session(
        self, session_id: str, app_name: str, user_id: str, delta: StateDelta, now: float
    ) -> bool:
        meta_key = self._key("session", session_id)

        def insert(pipe: Pipeline) -> bool:
            if pipe.exists(meta_key):
                return False
            old = self._watch_versions(pipe, session_id, app_name, user_id, delta)
            pipe.multi()
            pipe.hset(
                meta_key,
                mapping={
                    "app_name": app_name,
                    "user_id": user_id,
                    "create_time": now,
                    "last_update_time": now,
                },
            )
            pipe.zadd(self._sessions_key, {session_id: now})
            written[:] = self._queue_delta(pipe, old, delta)
            self._queue_expiry(pipe, session_id, app_name, user_id)
            return True

        written: list[Written] = []
        inserted = self._transaction(insert, meta_key)
        self._scopes.advance(written)
        return inserted

    def _begin_call(self, record: CallRecord) -> CallRecord | None:
        meta_key = self._key("session", record.session_id)
        calls_key = self._key("calls", record.session_id)

        def begin(pipe: Pipeline) -> CallRecord | None:
            if not pipe.exists(meta_key):
                raise NotFound(f"session {record.session_id!r} not found")
            existing = self._read_call(pipe, record.session_id, record.call_id)
            if existing is not None:
                return existing
            ttl = cast(int, pipe.pttl(meta_key))
            pipe.multi()
            pipe.hset(calls_key, record.call_id, record.model_dump_json())
            if ttl > 0:  # the session expires: so does the call record it now holds
                pipe.pexpire(calls_key, ttl)
            return None

        return self._transaction(begin, meta_key, calls_key)

    def _commit_call(self, call: FinishedCall) -> None:
        session_id, now, events = call.session_id, call.now, call.events_json
        meta_key = self._key("session", session_id)
        held = self._held_locks(session_id)

        def commit(pipe: Pipeline) -> None:
            app_name, user_id = self._owner(pipe, session_id)
            finished = self._finished(pipe, call)
            for lock_key, token in held.items():
                if pipe.get(lock_key) != token:
                    raise Timeout(
                        f"session {session_id!r}: the call's lock expired before the commit; "
                        "nothing was stored"
                    )
            old = self._watch_versions(pipe, session_id, app_name, user_id, call.delta)
            pipe.multi()
            written[:] = self._queue_delta(pipe, old, call.delta)
            if events:
                pipe.rpush(self._key("events", session_id), *events)
            pipe.hset(meta_key, "last_update_time", repr(now))
            pipe.zadd(self._sessions_key, {session_id: now})
            pipe.hset(self._key("calls", session_id), call.call_id, finished)
            self._queue_expiry(pipe, session_id, app_name, user_id)

        written: list[Written] = []
        self._bounded_transaction(commit, call.deadline, meta_key, self._key("calls", session_id), *held)
        self._scopes.advance(written)

    def _held_locks(self, session_id: str) -> dict[str, str]:
        """The locks this thread holds for a commit to the session: its own, and those of its
        user's and app's scopes (the session's owner is read without a lock: it never changes)."""
        tokens = self._tokens()
        keys = [self._key("lock", session_id)]
        owner = None
        if set(tokens) - set(keys):
            with self._errors():
                owner = self._read_owner(self._client, session_id)
        if owner is not None:
            app_name, user_id = owner
            keys += [self._scope_lock_key((app_name, user_id, "")), self._scope_lock_key((app_name, "", ""))]
        return {key: tokens[key] for key in keys if key in tokens}

    def _fail_call(self, call: FinishedCall) -> None:
        calls_key = self._key("calls", call.session_id)

        def fail(pipe: Pipeline) -> None:
            self._owner(pipe, call.session_id)
            finished = self._finished(pipe, call)
            pipe.multi()
            pipe.hset(calls_key, call.call_id, finished)

        self._transaction(fail, self._key("session", call.session_id), calls_key)

    # -- reads (inside a transaction: of watched keys) ------------------------------------

    def _read_owner(self, reader: redis.Redis | Pipeline, session_id: str) -> tuple[str, str] | None:
        """The session's (app_name, user_id), or None."""
        app_name, user_id = cast(
            list[str | None], reader.hmget(self._key("session", session_id), ["app_name", "user_id"])
        )
        return None if app_name is None or user_id is None else (app_name, user_id)

    def _read_call(self, reader: redis.Redis | Pipeline, session_id: str, call_id: str) -> CallRecord | None:
        data = cast(str | None, reader.hget(self._key("calls", session_id), call_id))
        return None if data is None else CallRecord.model_validate_json(data)

    def _owner(self, pipe: Pipeline, session_id: str) -> tuple[str, str]:
        owner = self._read_owner(pipe, session_id)
        if owner is None:
            raise NotFound(f"session {session_id!r} not found")
        return owner

    def _finished(self, pipe: Pipeline, call: FinishedCall) -> str:
        """The JSON of the call's record with its result; the call must be begun and unfinished."""
        record = self._read_call(pipe, call.session_id, call.call_id)
        if record is None:
            raise never_begun(call.session_id, call.call_id)
        if record.finished:
            raise already_finished(call.session_id, call.call_id)
        return record.model_copy(
            update={"status": call.status, "result": call.result, "finished_at": call.now}
        ).model_dump_json()

    def _watch_versions(
        self, pipe: Pipeline, session_id: str, app_name: str, user_id: str, delta: StateDelta
    ) -> dict[StateOwner, tuple[int | None, StateDelta]]:
        """The versions of the scopes ``delta`` writes (watched: the transaction runs again if
        one changes), with each scope's part of it."""
        parts = dict(scoped_parts(delta, app_name, user_id, session_id))
        if not parts:
            return {}
        keys = [self._state_key(owner, "version") for owner in parts]
        pipe.watch(*keys)
        found = cast(list[str | None], pipe.mget(keys))
        return {
            owner: (None if text is None else int(text), part)
            for (owner, part), text in zip(parts.items(), found, strict=True)
        }

    def _queue_delta(
        self, pipe: Pipeline, old: dict[StateOwner, tuple[int | None, StateDelta]], delta: StateDelta
    ) -> list[Written]:
        """Queue the writes of each scope's part of ``delta`` and its new version: what was written."""
        written = []
        for owner, (version, part) in old.items():
            small, large, revs, version_key = self._state_keys(owner)
            texts = {name: _dumps(value) for name, value in part.set.items()}
            sizes = {name: len(text.encode()) for name, text in texts.items()}
            big = {name for name, size in sizes.items() if size >= CACHED_FROM}
            if len(big) < len(texts):
                pipe.hset(small, mapping={name: text for name, text in texts.items() if name not in big})
                pipe.hdel(large, *(name for name in texts if name not in big))
                pipe.hdel(revs, *(name for name in texts if name not in big))
            if big:
                pipe.hset(large, mapping={name: texts[name] for name in big})
                pipe.hset(revs, mapping={name: f"{sizes[name]}:{secrets.randbits(62)}" for name in big})
                pipe.hdel(small, *big)
            if part.deleted:
                for key in (small, large, revs):
                    pipe.hdel(key, *part.deleted)
            new = secrets.randbits(62)
            pipe.set(version_key, new)
            written.append((owner, version, new, part, sizes))
        return written


def _versions(texts: list[str | None]) -> list[int | None]:
    """Scope versions as ``MGET`` returns them (None where a scope has none)."""
    return [None if text is None else int(text) for text in texts]


def _socket_timeout(connection: Any, seconds: float) -> None:
    """Bound each read and write of ``connection`` (connected) to ``seconds``: its socket's and
    its reply parser's timeout (the pool's check of a connection resets the socket to it)."""
    connection.socket_timeout = max(seconds, 0.001)
    connection.update_current_socket_timeout(connection.socket_timeout)


def _renew(held: Lock, stop: threading.Event) -> None:
    """Reset the lock's time to live every third of it until ``stop``, or until it is lost."""
    while not stop.wait(LOCK_TTL / 3):
        try:
            held.reacquire()
        except redis.exceptions.LockNotOwnedError:
            return
        except redis.RedisError:
            continue  # the server is unreachable for now: try again at the next tick
