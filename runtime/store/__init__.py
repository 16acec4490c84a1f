"""Session stores, chosen by URL: ``memory://``, ``sqlite:///path`` (the default),
``postgresql://...`` and ``redis://...``.

SQLite URLs follow SQLAlchemy: ``sqlite:///relative/path.db`` (three slashes, relative to the
working directory) and ``sqlite:////absolute/path.db`` (four). PostgreSQL URLs are libpq's
(``postgresql://user:password@host:5432/db``); Redis URLs are redis-py's
(``redis://host:6379/0``, ``rediss://`` for TLS), plus ``?prefix=name`` for the key prefix.
Any store URL may end in ``?idle_timeout=30d``: sessions idle that long expire
(``runtime/store/_retention.py``).
The stores are imported when first opened or named, so that reading ``DEFAULT_STORE_URL`` (the
CLI does, to show its options) loads no store and the others do not load their drivers; the
PostgreSQL and Redis drivers are the ``postgres`` and ``redis`` extras.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from runtime._extras import require_extra
from sandbox.common.errors import InvalidArguments

if TYPE_CHECKING:
    from runtime.store._base import Store
    from runtime.store._memory import MemoryStore
    from runtime.store._sqlite import SqliteStore

DEFAULT_STORE_URL = "sqlite:///.toolpen/sessions.db"

LOCK_TIMEOUT = 60.0
"""Seconds ``Store.lock`` waits for a busy session before raising ``Busy``."""

__all__ = [
    "DEFAULT_STORE_URL",
    "LOCK_TIMEOUT",
    "MemoryStore",
    "SqliteStore",
    "Store",
    "display_url",
    "open_store",
]


_LAZY = {
    "Store": "runtime.store._base",
    "MemoryStore": "runtime.store._memory",
    "SqliteStore": "runtime.store._sqlite",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'runtime.store' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def display_url(url: str) -> str:
    """``url`` fit to print: its password (``user:PASSWORD@`` or ``?password=``) as ``***``."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            userinfo, _, host = netloc.rpartition("@")
            netloc = f"{userinfo.partition(':')[0]}:***@{host}"
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        if netloc == parts.netloc and not any(name.lower() == "password" for name, _ in pairs):
            return url  # nothing secret (urlunsplit would also turn sqlite:/// into sqlite:/)
        query = [(name, "***" if name.lower() == "password" else value) for name, value in pairs]
        return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="*")))
    except ValueError:  # not a URL we can take apart: nothing of it is safe to print
        return "<store URL>"


def open_store(
    url: str = DEFAULT_STORE_URL, *, migrate: bool = False, idle_timeout: float | None = None
) -> Store:
    """The store a URL names; raises ``InvalidArguments`` for a URL no store understands and
    ``StoreError`` for a schema of another version, unless ``migrate`` (`toolpen store
    migrate`) upgrades an older one (``runtime/store/_migrations.py``). ``idle_timeout``
    (seconds; else the URL's ``?idle_timeout=``) expires sessions idle that long."""
    from runtime.store._retention import split_idle_timeout

    url, given = split_idle_timeout(url)
    store = _open(url, migrate)
    store.idle_timeout = idle_timeout if idle_timeout is not None else given
    return store


def _open(url: str, migrate: bool) -> Store:
    if url == "memory://":
        from runtime.store._memory import MemoryStore

        return MemoryStore()
    path = url.removeprefix("sqlite:///")
    if url.startswith("sqlite:///") and path not in ("", ":memory:"):
        from runtime.store._sqlite import SqliteStore

        return SqliteStore(path, migrate=migrate)
    if url.startswith("postgresql://"):
        require_extra("postgres", "a postgresql:// store")
        from runtime.store._postgres import PostgresStore

        return PostgresStore(url, migrate=migrate)
    if url.startswith(("redis://", "rediss://")):
        require_extra("redis", "a redis:// store")
        from runtime.store._redis_store import RedisStore

        return RedisStore(url, migrate=migrate)
    raise InvalidArguments(
        f"unknown store URL {display_url(url)!r}: use memory://, sqlite:///path, postgresql://... or redis://..."
    )
