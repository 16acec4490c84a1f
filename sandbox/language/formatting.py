"""``str.format`` and ``str.format_map`` for tool code: their fields read attributes through the guards.

``"{0.__class__}".format(x)`` and ``"{0[key]}"`` walk attributes and items by name inside
``str.format``, in C, past every guard; a format string is data a model may choose. So
``guards.guarded_getattr`` answers ``str.format``/``format_map`` (on a string, or on ``str``
itself) with these versions, whose fields are read by the attribute guard they were built with,
and ``BLOCKED_ATTRIBUTES`` keeps the real ones out of reach by name (``string.Formatter`` is not
in the ``string`` view). The format string is copied to an exact ``str`` first (a subclass could
lie about its characters). The guard is handed in (``GuardedFormat(guarded_getattr)``) rather
than imported: the attribute guard itself hands these methods out.
"""

from __future__ import annotations

import string
from _string import formatter_field_name_split as _formatter_field_name_split
from collections.abc import Callable
from typing import Any

from sandbox.language.rules import check_listed, exact_str

check_listed(__name__)


class SafeFormatter(string.Formatter):
    """``str.format`` whose ``{0.attr}`` / ``{0[key]}`` fields go through the guards."""

    def __init__(self, read_attribute: Callable[[Any, str], Any]) -> None:
        super().__init__()
        self._read_attribute = read_attribute

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, Any]:
        first, rest = _formatter_field_name_split(field_name)
        value = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            value = self._read_attribute(value, key) if is_attribute else value[key]
        return value, first


class GuardedFormat:
    """The ``format`` and ``format_map`` tool code gets, built once around the attribute guard."""

    __slots__ = ("format", "format_map")

    def __init__(self, read_attribute: Callable[[Any, str], Any]) -> None:
        formatter = SafeFormatter(read_attribute)

        def safe_format(template: str, /, *args: Any, **kwargs: Any) -> str:
            """``template.format(*args, **kwargs)`` with guarded field lookups."""
            return formatter.vformat(exact_str(template, "a format string"), args, kwargs)

        def safe_format_map(template: str, mapping: Any, /) -> str:
            """``template.format_map(mapping)`` with guarded field lookups."""
            return formatter.vformat(exact_str(template, "a format string"), (), mapping)

        safe_format.__qualname__, safe_format_map.__qualname__ = "safe_format", "safe_format_map"
        self.format: Callable[..., str] = safe_format
        self.format_map: Callable[..., str] = safe_format_map

    def method(self, obj: Any, name: str) -> Callable[..., str]:
        """``obj.format``/``obj.format_map`` (``name``) for a string ``obj``, or the unbound one for ``str``."""
        method = self.format if name == "format" else self.format_map
        if obj is str:
            return method
        return lambda *args, **kwargs: method(obj, *args, **kwargs)
