"""The large state values a shared store has read, kept by revision, so that a call does not
read a value again until it changed.

Each stored state key has a revision, a random number written with every new value (SQL: the
``rev`` column of ``toolpen_state_keys``; Redis: the ``revs`` hash). A read of a session's
state fetches every key's size and revision, the values under ``CACHED_FROM`` bytes, and the
larger ones only when this cache does not hold them at that revision: another process that
wrote one gave it a new revision, so a stale value is never used. The cache is bounded
(``MAX_BYTES``, least recently used out first) and hands out copies: what a caller does to a
state it read never reaches the cache.
"""

from __future__ import annotations

import copy
import marshal
import threading
from collections import OrderedDict
from typing import Any

CACHED_FROM = 4096
"""Bytes of JSON from which a value is read from the store only when its revision changed."""

MAX_BYTES = 256 * 1024 * 1024
"""The JSON bytes of the values one store keeps."""

MISSING = object()
"""What ``ValueCache.get`` returns for a value it does not hold at that revision."""

_IMMUTABLE = (str, int, float, bool, type(None))


def _copy(value: Any) -> Any:
    """A copy of a JSON value sharing nothing mutable with it (marshal copies exactly those types)."""
    if isinstance(value, _IMMUTABLE):
        return value
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return copy.deepcopy(value)


class ValueCache:
    """Values by (scope owner, key) at one revision each, up to ``max_bytes`` of JSON."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[Any, str], tuple[int, int, Any]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, owner: Any, key: str, rev: int) -> Any:
        """A copy of the value of ``key`` at revision ``rev``, or ``MISSING``."""
        with self._lock:
            entry = self._entries.get((owner, key))
            if entry is None or entry[0] != rev:
                return MISSING
            self._entries.move_to_end((owner, key))
            value = entry[2]
        return _copy(value)

    def put(self, owner: Any, key: str, rev: int, size: int, value: Any) -> None:
        """Keep (a copy of) ``value`` as ``key``'s at revision ``rev``, if it fits."""
        if size > self.max_bytes:
            return
        kept = _copy(value)
        with self._lock:
            old = self._entries.pop((owner, key), None)
            if old is not None:
                self._bytes -= old[1]
            self._entries[(owner, key)] = (rev, size, kept)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped, _) = self._entries.popitem(last=False)
                self._bytes -= dropped
