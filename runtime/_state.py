"""What the host adds to state deltas and key scopes (``sandbox.common.state_delta``): the shared
scopes, and a state seen without its ``temp:`` keys.

Plain Python only: the call path imports this module, while the session models
(``runtime/_session.py``, pydantic) load with the first store.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from sandbox.common.state_delta import NO_CHANGE, Scope, StateDelta, encode_json, scope_of

__all__ = [
    "NO_CHANGE",
    "SHARED_SCOPES",
    "Scope",
    "StateDelta",
    "encode_json",
    "scope_of",
    "without_temp_keys",
]

SHARED_SCOPES = frozenset({Scope.APP, Scope.USER})
"""The scopes shared by several sessions."""


def without_temp_keys(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` minus its ``temp:`` keys: ``state`` itself when it has none (found without a
    Python loop over the keys: a state can hold hundreds of thousands)."""
    if not any(map(str.startswith, state, repeat("temp:"))):
        return state
    return {key: value for key, value in state.items() if not key.startswith("temp:")}
