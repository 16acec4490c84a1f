"""A call's state as the host holds it: its values, their JSON sizes, and what a worker is sent.

A worker is sent the small values and only the keys and sizes of the large ones (``LAZY_FROM``
bytes of JSON and more); it reads a large value over its RPC channel (``state.read``, answered
by :class:`StepReads`) the first time tool code reads that key, so a call that leaves a
large value alone never moves it (``sandbox/bridges/proxies.py``, ``State``). The state's size
(``limits.state_size``) is kept from the per-key sizes the store keeps: a call changes it by
what it sets and deletes, and the whole state is not encoded to check it.

A worker is sent each value at most once (``StepReads``): a worker's ``State`` reads a key once,
so a second request for it is a forged one (``walls="process"``), refused without encoding the
value again. What a step's worker is sent is then at most the state's size, however many reads
it sends, concurrent ones included.

Plain Python only: the call path imports this module.
"""

from __future__ import annotations

import threading
from typing import Any

from sandbox.common.errors import ProtocolBroken
from sandbox.common.state_delta import StateDelta, entry_size, json_size, state_json_size

LAZY_FROM = 16 * 1024
"""Bytes of JSON from which a value stays in the host until the worker reads it."""

_SMALL = (int, float, bool, type(None))


class StateView:
    """The state a step of a call runs in (``values``, never changed), with the JSON sizes of its
    values: those the store gave, the others measured when first needed."""

    __slots__ = ("values", "_sizes", "_total")

    def __init__(self, values: dict[str, Any], sizes: dict[str, int] | None = None) -> None:
        self.values = values
        self._sizes = dict(sizes or {})  # the store's: of these values' keys (not of temp: ones)
        self._total: int | None = None

    def size_of(self, key: str) -> int:
        """The bytes of ``key``'s value as compact JSON."""
        size = self._sizes.get(key)
        if size is None:
            size = self._sizes[key] = json_size(self.values[key])
        return size

    def total(self) -> int:
        """The state's size as compact JSON, from the sizes of its values."""
        if self._total is None:
            known = self._sizes if self._knows_all() else {key: self.size_of(key) for key in self.values}
            self._total = state_json_size(known)
        return self._total

    def _knows_all(self) -> bool:
        """Whether every value's size is known (the store gave them all)."""
        return len(self._sizes) == len(self.values)

    def for_worker(self) -> dict[str, Any]:
        """The snapshot's state entries a worker gets: ``state`` (the values, ``None`` for those
        left here), ``lazy_state`` (the keys left here, with their sizes) and ``state_size``
        (when every size is known without encoding a value)."""
        if self._knows_all():
            lazy = {key: size for key, size in self._sizes.items() if size >= LAZY_FROM}
        else:
            lazy = {key: self.size_of(key) for key, value in self.values.items() if self._large(key, value)}
        if not lazy:
            return {"state": self.values, **self._known_total()}
        state = {key: None if key in lazy else value for key, value in self.values.items()}
        return {"state": state, "lazy_state": lazy, **self._known_total()}

    def _known_total(self) -> dict[str, int]:
        if self._total is None and not self._knows_all():
            return {}
        return {"state_size": self.total()}

    def _large(self, key: str, value: Any) -> bool:
        size = self._sizes.get(key)
        if size is not None:
            return size >= LAZY_FROM
        if isinstance(value, _SMALL) or (isinstance(value, str) and len(value) * 6 + 2 < LAZY_FROM):
            return False  # small whatever its characters: not measured
        return self.size_of(key) >= LAZY_FROM

    def size_after(self, delta: StateDelta) -> int:
        """The compact JSON size of the state ``delta`` leaves: this one's, less the entries it
        changes, plus their new ones."""
        total = self.total()
        for key in {*delta.set, *delta.deleted}:
            if key in self.values:
                total -= entry_size(key, self.size_of(key))
        deleted = set(delta.deleted)
        for key, value in delta.set.items():
            if key not in deleted:
                total += entry_size(key, json_size(value))
        return max(total, 2)

    def with_delta(self, delta: StateDelta) -> StateView:
        """The state after ``delta`` (this one itself when it changes nothing)."""
        if not delta:
            return self
        sizes = dict(self._sizes)
        for key in (*delta.set, *delta.deleted):
            sizes.pop(key, None)
        return StateView(delta.apply_to(self.values), sizes)


class StepReads:
    """A worker's ``state.read`` requests in one step of a call, answered from ``view``: each
    key's value is sent at most once; a key asked for again is a ``protocol`` error."""

    __slots__ = ("_view", "_sent", "_lock")

    def __init__(self, view: StateView) -> None:
        self._view = view
        self._sent: set[str] = set()
        self._lock = threading.Lock()  # the pool answers concurrent requests in threads

    def read(self, keys: Any) -> dict[str, Any]:
        """The values of ``keys``; keys the state lacks are left out."""
        if not isinstance(keys, list):
            return {}
        values = self._view.values
        wanted = [key for key in keys if isinstance(key, str) and key in values]
        with self._lock:
            for key in wanted:  # a key twice in one request too
                if key in self._sent:
                    raise ProtocolBroken(f"the worker asked again for context.state[{key!r}], sent already")
                self._sent.add(key)
        return {key: values[key] for key in wanted}
