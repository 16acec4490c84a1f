"""Session stores, chosen by URL: ``memory://`` and ``sqlite:///path`` (the default).

SQLite URLs follow SQLAlchemy: ``sqlite:///relative/path.db`` (three slashes, relative to the
working directory) and ``sqlite:////absolute/path.db`` (four).
"""

from __future__ import annotations

from runtime.errors import InvalidArguments
from runtime.store.base import LOCK_TIMEOUT, Store
from runtime.store.memory import MemoryStore
from runtime.store.sqlite import SqliteStore

DEFAULT_STORE_URL = "sqlite:///.toolpen/sessions.db"

__all__ = ["DEFAULT_STORE_URL", "LOCK_TIMEOUT", "MemoryStore", "SqliteStore", "Store", "open_store"]


def open_store(url: str = DEFAULT_STORE_URL) -> Store:
    """The store a URL names; raises ``InvalidArguments`` for a URL no store understands."""
    if url == "memory://":
        return MemoryStore()
    path = url.removeprefix("sqlite:///")
    if url.startswith("sqlite:///") and path not in ("", ":memory:"):
        return SqliteStore(path)
    raise InvalidArguments(f"unknown store URL {url!r}: use memory:// or sqlite:///path")
