"""What a shared store has read, kept so that a call does not read it again until it changed:
large state values by revision (``ValueCache``), whole scopes by version (``ScopeCache``).

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
from itertools import repeat
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


Part = tuple[dict[str, Any], dict[str, int]]
"""A scope's values and their JSON sizes, in order."""

Written = tuple[Any, int | None, int, Any, dict[str, int]]
"""What a commit wrote to a scope: its owner, the version it replaced (None: none), the new one,
its part of the delta (a ``StateDelta``) and the sizes of the values it set."""


class ScopeCache:
    """Whole scopes (values and sizes, in order) by scope owner at one version each, up to
    ``max_bytes`` of JSON, least recently used out first.

    Each stored scope has a version, a random number written by every commit that changes it
    (SQL: ``toolpen_state_scopes``; Redis: ``P:version:OWNER``): a read whose scope versions
    are those held here reads none of their rows. A commit of this store rolls a held scope
    forward by its delta when the version it replaced is the one held (``advance``); another
    writer's commit leaves a version this cache does not hold, so the scope is read again.
    The values held are never handed out: ``merged`` copies the mutable ones.
    """

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[Any, tuple[int, dict[str, Any], dict[str, int]]] = OrderedDict()
        self._bytes: dict[Any, int] = {}
        self._total = 0  # the sum of _bytes, kept as they change
        self._lock = threading.Lock()

    def holds(self, owner: Any, version: int | None) -> bool:
        """Whether ``owner``'s scope is held at ``version``."""
        with self._lock:
            entry = self._entries.get(owner)
            return entry is not None and entry[0] == version

    def put(self, owner: Any, version: int, values: dict[str, Any], sizes: dict[str, int]) -> None:
        """Hold (copies of) ``owner``'s scope at ``version``, if it fits."""
        total = sum(sizes.values())
        if total > self.max_bytes:
            return
        kept = {key: _copy(value) for key, value in values.items()} if _mutable(values) else dict(values)
        with self._lock:
            self._drop(owner)
            self._entries[owner] = (version, kept, dict(sizes))
            self._bytes[owner] = total
            self._total += total
            self._trim()

    def advance(self, written: list[Written]) -> None:
        """The scopes a commit wrote, after it: each rolled forward by its part of the delta if
        held at the version the commit replaced, dropped otherwise."""
        for owner, old, new, delta, sizes in written:
            self._advance(owner, old, new, delta, sizes)

    def _advance(self, owner: Any, old: int | None, new: int, delta: Any, sizes: dict[str, int]) -> None:
        with self._lock:
            entry = self._entries.get(owner)
            if entry is None or old is None or entry[0] != old:
                self._drop(owner)
                return
            _, values, held_sizes = entry
            total = self._bytes[owner]
            for key, value in delta.set.items():
                total += sizes[key] - held_sizes.get(key, 0)
                values[key] = _copy(value)
                held_sizes[key] = sizes[key]
            for key in delta.deleted:
                values.pop(key, None)
                total -= held_sizes.pop(key, 0)
            self._entries[owner] = (new, values, held_sizes)
            self._entries.move_to_end(owner)
            self._total += total - self._bytes[owner]
            self._bytes[owner] = total
            self._trim()

    def drop(self, owner: Any) -> None:
        """Forget ``owner``'s scope."""
        with self._lock:
            self._drop(owner)

    def merged(self, parts: list[tuple[Any, int | None, Part | None]]) -> Part | None:
        """The state of the scopes ``parts`` name, merged in order, with its values' sizes: each
        (owner, version, part) is the part given, or the one held at that version (None when
        this cache does not hold it). A copy sharing nothing mutable with this cache."""
        state: dict[str, Any] = {}
        sizes: dict[str, int] = {}
        with self._lock:
            for owner, version, part in parts:
                if part is None:
                    entry = self._entries.get(owner)
                    if entry is None or entry[0] != version:
                        return None
                    self._entries.move_to_end(owner)
                    part = entry[1], entry[2]
                state.update(part[0])  # in C, under the lock: no commit changes them meanwhile
                sizes.update(part[1])
        if _mutable(state):
            state = {key: _copy(value) for key, value in state.items()}
        return state, sizes

    def _drop(self, owner: Any) -> None:
        if self._entries.pop(owner, None) is not None:
            self._total -= self._bytes.pop(owner)

    def _trim(self) -> None:
        while self._total > self.max_bytes:
            owner, _ = self._entries.popitem(last=False)
            self._total -= self._bytes.pop(owner)


def _mutable(values: dict[str, Any]) -> bool:
    """Whether some of ``values`` is a list or dict (checked in C)."""
    return not all(map(isinstance, values.values(), repeat(_IMMUTABLE)))
