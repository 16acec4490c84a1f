"""CPython's own function, its code run against other globals (a view's module in place of the real one)."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any


def rebound(function: Callable[..., Any], namespace: dict[str, Any]) -> types.FunctionType:
    """``function``'s code, defaults, closure and doc, with ``namespace`` as its globals."""
    assert isinstance(function, types.FunctionType), function
    copy = types.FunctionType(
        function.__code__, namespace, function.__name__, function.__defaults__, function.__closure__
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    copy.__doc__ = function.__doc__
    return copy
