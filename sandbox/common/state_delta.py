"""State deltas and key scopes: what a call changes, and where each key lives.

A session's visible state merges three scopes, told apart by the key's prefix:

- ``app:key``: shared by every session of the app;
- ``user:key``: shared by the sessions of one (app, user);
- ``key`` (no prefix): this session only;
- ``temp:key``: visible during one invocation, never stored.

A tool never writes state directly: it returns a :class:`StateDelta` (keys set and deleted),
which the store commits atomically with the call's events (see ``runtime/store/_base.py``).
A leaf: the worker's ``done`` carries a delta (``sandbox/messages.py``) and the host decodes it;
plain Python only, on the call path of both sides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from itertools import chain, repeat
from typing import Any

from sandbox.common.errors import InvalidState, OutputTooLarge


class Scope(StrEnum):
    """Where a state key lives, chosen by its prefix."""

    APP = "app"
    USER = "user"
    SESSION = "session"
    TEMP = "temp"


_PREFIXES = {"app:": Scope.APP, "user:": Scope.USER, "temp:": Scope.TEMP}


def scope_of(key: str) -> Scope:
    """The scope of a state key: ``app:``, ``user:``, ``temp:`` or (no prefix) the session."""
    for prefix, scope in _PREFIXES.items():
        if key.startswith(prefix):
            return scope
    return Scope.SESSION


def encode_json(value: Any, what: str) -> str:
    """Strict JSON text of ``value`` (no NaN/Infinity); raises ``InvalidState`` naming ``what``."""
    try:
        return json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidState(f"{what} is not JSON: {exc}") from None


@dataclass(frozen=True)
class StateDelta:
    """What one call changed in the state: keys set (to JSON values) and keys deleted.

    Its JSON shape is ``{"set": {key: value}, "deleted": [key, ...]}``. A key both set and
    deleted is deleted.
    """

    set: dict[str, Any] = field(default_factory=dict)
    deleted: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> StateDelta:
        """Read the JSON shape (``None`` is the empty delta); raises ``InvalidState`` if malformed."""
        if data is None:
            return NO_CHANGE
        if not isinstance(data, dict) or set(data) - {"set", "deleted"}:
            raise InvalidState('a state delta is {"set": {...}, "deleted": [...]}')
        to_set = data.get("set") or {}
        deleted = data.get("deleted") or []
        if not to_set and not deleted:
            return NO_CHANGE
        if not isinstance(to_set, dict) or not all(isinstance(k, str) for k in to_set):
            raise InvalidState("state delta 'set' must map string keys to values")
        if not isinstance(deleted, list) or not all(isinstance(k, str) for k in deleted):
            raise InvalidState("state delta 'deleted' must be a list of string keys")
        return cls(dict(to_set), list(deleted))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape ``{"set": {...}, "deleted": [...]}``."""
        return {"set": dict(self.set), "deleted": list(self.deleted)}

    def __bool__(self) -> bool:
        return bool(self.set or self.deleted)

    @cached_property
    def _parts(self) -> dict[Scope, StateDelta]:
        """This delta split by scope, in one pass over its keys (a delta is not changed once made)."""
        sets: dict[Scope, dict[str, Any]] = {}
        deleted: dict[Scope, list[str]] = {}
        for key, value in self.set.items():
            sets.setdefault(scope_of(key), {})[key] = value
        for key in self.deleted:
            deleted.setdefault(scope_of(key), []).append(key)
        return {scope: StateDelta(sets.get(scope, {}), deleted.get(scope, [])) for scope in {*sets, *deleted}}

    def only(self, *scopes: Scope) -> StateDelta:
        """The part of this delta whose keys are in one of ``scopes``."""
        if len(scopes) == 1:
            return self._parts.get(scopes[0]) or StateDelta()
        return StateDelta(
            {k: v for k, v in self.set.items() if scope_of(k) in scopes},
            [k for k in self.deleted if scope_of(k) in scopes],
        )

    def scopes(self) -> frozenset[Scope]:
        """The scopes of the keys this delta sets or deletes."""
        return frozenset(self._parts)

    def without_temp(self) -> StateDelta:
        """This delta minus the ``temp:`` keys (what gets stored and recorded in events); itself
        when it has none."""
        if not any(map(str.startswith, chain(self.set, self.deleted), repeat("temp:"))):
            return self
        return self.only(Scope.APP, Scope.USER, Scope.SESSION)

    def apply_to(self, state: dict[str, Any]) -> dict[str, Any]:
        """A new state: ``state`` with this delta's keys set, then its deleted keys removed."""
        result = {**state, **self.set}
        for key in self.deleted:
            result.pop(key, None)
        return result

    def then(self, later: StateDelta) -> StateDelta:
        """One delta with the effect of this one followed by ``later`` (one of them when the other is empty)."""
        if not later:
            return self
        if not self:
            return later
        later_deleted = set(later.deleted)
        changed = {k: v for k, v in self.set.items() if k not in later_deleted}
        changed.update(later.set)
        deleted = [k for k in self.deleted if k not in later.set]
        earlier = set(deleted)
        deleted += [k for k in later.deleted if k not in earlier]
        return StateDelta(changed, deleted)

    def check_json(self) -> None:
        """Raise ``InvalidState`` (naming the key) if a value set is not JSON: one encoding of
        them all, then key by key only to name the culprit."""
        try:
            encode_json(self.set, "the state delta")
        except InvalidState:
            for key, value in self.set.items():
                encode_json(value, f"state key {key!r}")
            raise


def json_size(value: Any) -> int:
    """The bytes of ``value`` as compact JSON text (UTF-8), as stores keep it."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def entry_size(key: str, size: int) -> int:
    """What a key whose value is ``size`` bytes adds to its state's compact JSON (its quotes,
    colon and comma; the key's characters counted as UTF-8, without escapes): a state's size is
    1 plus the sum over its keys (2 when empty)."""
    return len(key.encode()) + size + 4


def state_json_size(sizes: dict[str, int]) -> int:
    """The compact JSON size of a state whose values have the JSON ``sizes`` (summed in C: a
    state can hold hundreds of thousands of keys)."""
    if not sizes:
        return 2
    return 1 + sum(sizes.values()) + sum(map(len, map(str.encode, sizes))) + 4 * len(sizes)


def check_value_sizes(values: dict[str, Any], limit: int) -> None:
    """Raise ``OutputTooLarge`` naming the first key whose value is over ``limit`` bytes of JSON
    (``limits.state_value_size``); only the values set are encoded, not the whole state."""
    for key, value in values.items():
        if isinstance(value, str) and len(value) * 6 + 2 <= limit:
            continue  # a short string cannot be over it, whatever its characters (six: "\u0001")
        size = json_size(value)
        if size > limit:
            raise OutputTooLarge(
                f"state key {key!r} would hold {size} bytes of JSON, over the limit of {limit} per value "
                "(limits.state_value_size): keep bulk data out of the state"
            )


def state_too_large(size: int, limit: int, values: dict[str, Any]) -> OutputTooLarge:
    """The error for a call whose state would be ``size`` bytes, over ``limit``
    (``limits.state_size``), naming the largest of the ``values`` it set."""
    message = f"the session state would be {size} bytes, over the limit of {limit} (limits.state_size)"
    if values:
        largest = max(values, key=lambda key: json_size(values[key]))
        message += (
            f"; the largest value this call set is state key {largest!r} ({json_size(values[largest])} bytes)"
        )
    return OutputTooLarge(message)


NO_CHANGE = StateDelta()
"""The empty delta, shared (a delta is never changed once made): most calls change nothing."""
