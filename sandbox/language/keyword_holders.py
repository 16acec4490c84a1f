"""Objects that hold keyword arguments and a namespace, as tool code gets them: checked when used.

A keyword name starting with ``_`` reaches internal parameters, so the guards refuse it where tool
code calls (``guards.guarded_apply``). Some objects keep keywords in a live dict and pass them on
later, from C, past that call site: ``functools.partial(f).keywords`` (and ``partialmethod``'s) is
written with ``[...] =``, ``update`` or ``setdefault``, and the partial then calls ``f`` with
whatever is in it. Here they check every name when they are called (``CheckedPartial``,
``CheckedPartialMethod``). ``types.SimpleNamespace`` turns keywords into its instance dict, which C
code reads special attributes from (numpy's ``__array_interface__``: raw memory; ``copy``'s
``__deepcopy__``: the private memo): the namespace tool code gets (``CheckedNamespace``) refuses
those names however its keywords arrive, and answers numpy's and ``copy``'s names from its class.
``type(x)`` answers these classes for the library's own instances (``library_rules.TYPE_STAND_INS``).
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Callable, Mapping
from typing import Any

from sandbox.language.array_interface import close_array_interface
from sandbox.language.copy_protocol import close_instance_methods
from sandbox.language.guards import checked_keyword
from sandbox.language.library_rules import TYPE_STAND_INS
from sandbox.language.rules import check_listed

check_listed(__name__)


def _checked(keywords: Mapping[str, Any]) -> None:
    for name in keywords:
        checked_keyword(name)


class CheckedPartial(functools.partial):  # type: ignore[type-arg]
    """``functools.partial`` whose stored keywords (a live dict) are checked each time it is called.

    Overriding ``__call__`` also keeps CPython from flattening it into an outer partial: a partial of
    a partial calls this one, which checks.
    """

    __slots__ = ()

    def __call__(self, /, *args: Any, **keywords: Any) -> Any:
        _checked(functools.partial.__dict__["keywords"].__get__(self))  # not a subclass's shadow
        _checked(keywords)
        return functools.partial.__call__(self, *args, **keywords)

    def __repr__(self) -> str:
        return "functools." + functools.partial.__repr__(self).removeprefix("functools.")


class CheckedPartialMethod(functools.partialmethod):  # type: ignore[type-arg]
    """``functools.partialmethod`` that binds to a ``CheckedPartial`` and checks its keywords when called."""

    def __get__(self, obj: Any, cls: type | None = None) -> Any:
        get = getattr(self.func, "__get__", None)
        if get is not None:
            bound = get(obj, cls)
            if bound is not self.func:
                result = CheckedPartial(bound, *self.args, **self.keywords)
                with contextlib.suppress(AttributeError):
                    result.__self__ = bound.__self__  # type: ignore[attr-defined]
                return result
        return self._make_unbound_method().__get__(obj, cls)

    def _make_unbound_method(self) -> Callable[..., Any]:
        def _method(cls_or_self: Any, /, *args: Any, **keywords: Any) -> Any:
            merged = {**self.keywords, **keywords}
            _checked(merged)
            return self.func(cls_or_self, *self.args, *args, **merged)

        _method.__isabstractmethod__ = self.__isabstractmethod__  # type: ignore[attr-defined]
        _method._partialmethod = self  # type: ignore[attr-defined]
        return _method


class CheckedNamespace(types.SimpleNamespace):
    """``types.SimpleNamespace`` whose instance dict never gets a name starting with ``_``.

    Its keywords become its ``__dict__``, where numpy and ``copy`` look special attributes up; they
    are checked here, however they arrive (a partial, a mapping spread by C code). numpy's and
    ``copy``'s names are answered from the class besides (``close_array_interface``,
    ``close_instance_methods``). Its repr is the namespace's own (``namespace(a=1)``).
    """

    __slots__ = ()

    def __init__(self, /, **keywords: Any) -> None:
        _checked(keywords)
        super().__init__(**keywords)

    def __repr__(self) -> str:
        return "namespace" + types.SimpleNamespace.__repr__(self).removeprefix(type(self).__name__)


CheckedPartial.__name__ = CheckedPartial.__qualname__ = "partial"
CheckedPartial.__module__ = "functools"
CheckedPartialMethod.__name__ = CheckedPartialMethod.__qualname__ = "partialmethod"
CheckedPartialMethod.__module__ = "functools"
CheckedNamespace.__name__ = CheckedNamespace.__qualname__ = "SimpleNamespace"
CheckedNamespace.__module__ = "types"
close_array_interface(CheckedNamespace)
close_instance_methods(CheckedNamespace)
TYPE_STAND_INS.update(
    {
        functools.partial: CheckedPartial,
        functools.partialmethod: CheckedPartialMethod,
        types.SimpleNamespace: CheckedNamespace,
    }
)

REPLACED: dict[str, dict[str, Any]] = {
    "functools": {"partial": CheckedPartial, "partialmethod": CheckedPartialMethod},
    "types": {"SimpleNamespace": CheckedNamespace},
}
"""What the ``functools`` and ``types`` views hold instead of the library's classes."""
