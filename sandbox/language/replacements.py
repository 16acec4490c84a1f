"""What module views hand tool code instead of a library's own member: the versions that keep the rules.

Some standard library members walk attributes by name (``operator.attrgetter``,
``methodcaller``), copy and write attributes named by their arguments (``functools.wraps``,
``update_wrapper``: ``updated=("__globals__",)`` would merge a host module's globals into the
tool's), hand out a metaclass (``typing.get_origin(Type[int])`` is the real ``type``), or change
the class or function they are given (``dataclasses.dataclass``, ``functools.total_ordering``,
``enum.unique``, ``typing.final``, ...: applied to a host class they would change it for every
call). Each has a version here that goes through the guards, or that applies to the tool's own
classes and functions only; ``modules.py`` puts them in the views (``CLASS_HELPERS`` by module).
``copy.deepcopy``'s is in ``copy_protocol.py``, ``str.format``'s in ``formatting.py``.
"""

from __future__ import annotations

import abc
import dataclasses
import enum
import functools
import typing
from collections.abc import Callable, Iterable
from typing import Any

from sandbox.language.copy_protocol import NEVER_COPIED
from sandbox.language.guards import guarded_getattr, guarded_write
from sandbox.language.rules import (
    TOOL_MODULE_NAME,
    check_listed,
    is_allowed_attribute,
    is_tool_class,
    is_tool_owned,
    refuse,
)

check_listed(__name__)


def checked_attribute_path(dotted: str) -> list[str]:
    """Split ``"a.b.c"`` for attrgetter-like helpers, refusing names the guards would refuse."""
    if type(dotted) is not str:
        refuse("attribute names must be strings")
    parts = dotted.split(".")
    for part in parts:
        if not is_allowed_attribute(part):
            refuse(f"access to attribute {part!r} is not allowed")
    return parts


def attrgetter(*dotted_names: str) -> Callable[[Any], Any]:
    """``operator.attrgetter`` through the guards."""
    paths = [checked_attribute_path(name) for name in dotted_names]

    def resolve(obj: Any, path: Iterable[str]) -> Any:
        for part in path:
            obj = guarded_getattr(obj, part)
        return obj

    if len(paths) == 1:
        return lambda obj: resolve(obj, paths[0])
    return lambda obj: tuple(resolve(obj, path) for path in paths)


def methodcaller(name: str, /, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    """``operator.methodcaller`` through the guards."""
    if not is_allowed_attribute(name):
        refuse(f"access to attribute {name!r} is not allowed")
    return lambda obj: guarded_getattr(obj, name)(*args, **kwargs)


def _without_metaclasses(value: Any) -> Any:
    """``value`` (a type, or a tuple/list of them) unless it holds ``type`` or another metaclass."""
    items = value if isinstance(value, tuple | list) else (value,)
    for item in items:
        if isinstance(item, list):
            _without_metaclasses(item)
        elif isinstance(item, type) and issubclass(item, type):
            refuse("typing introspection may not return a metaclass such as type")
    return value


def guarded_get_origin(annotation: Any) -> Any:
    """``typing.get_origin``, except that ``get_origin(Type[int])`` does not hand out ``type``."""
    return _without_metaclasses(typing.get_origin(annotation))


def guarded_get_args(annotation: Any) -> tuple[Any, ...]:
    """``typing.get_args``, refusing results that hold a metaclass."""
    return _without_metaclasses(typing.get_args(annotation))


_WRAPPER_ASSIGNMENTS = ("__name__", "__qualname__", "__doc__")
"""What ``functools.wraps`` copies here: not ``__module__``, which says whether a class is the tool's
(``is_tool_class``) or a library's (whose rules its attribute accesses then follow)."""


def guarded_update_wrapper(
    wrapper: Any,
    wrapped: Any,
    assigned: Any = functools.WRAPPER_ASSIGNMENTS,
    updated: Any = functools.WRAPPER_UPDATES,
) -> Any:
    """``functools.update_wrapper`` with its default arguments, onto the tool's own functions.

    The real one copies and updates attributes named by its arguments (``updated=("__globals__",)``
    would merge a host module's globals into the tool's); here the names are the defaults but
    ``__module__`` (``_WRAPPER_ASSIGNMENTS``), copied only when they are strings, and a
    ``__dict__`` only from the tool's own callables.
    """
    if assigned != functools.WRAPPER_ASSIGNMENTS or updated != functools.WRAPPER_UPDATES:
        refuse("functools.wraps / update_wrapper take their default assigned= and updated= only")
    guarded_write(wrapper)
    for name in _WRAPPER_ASSIGNMENTS:
        value = getattr(wrapped, name, None)
        if type(value) is str or (value is None and name == "__doc__"):
            setattr(wrapper, name, value)
    extra = getattr(wrapped, "__dict__", None)
    if isinstance(extra, dict) and extra:
        if getattr(wrapped, "__module__", None) != TOOL_MODULE_NAME and not is_tool_class(type(wrapped)):
            refuse("functools.wraps copies the attributes of the tool's own functions only")
        vars(wrapper).update({key: value for key, value in extra.items() if key not in NEVER_COPIED})
    wrapper.__wrapped__ = wrapped
    return wrapper


def guarded_wraps(
    wrapped: Any, assigned: Any = functools.WRAPPER_ASSIGNMENTS, updated: Any = functools.WRAPPER_UPDATES
) -> Callable[[Any], Any]:
    """``functools.wraps`` through ``guarded_update_wrapper``."""
    if assigned != functools.WRAPPER_ASSIGNMENTS or updated != functools.WRAPPER_UPDATES:
        refuse("functools.wraps / update_wrapper take their default assigned= and updated= only")

    def decorate(wrapper: Any) -> Any:
        return guarded_update_wrapper(wrapper, wrapped)

    return decorate


def _own(obj: Any, helper: str) -> Any:
    if not is_tool_owned(obj):
        refuse(
            f"{helper}() changes what it is given: it applies only to classes and functions the tool defines"
        )
    return obj


def _own_class(cls: Any, helper: str) -> Any:
    if not is_tool_class(cls):
        refuse(f"{helper}() changes the class it is given: it applies only to classes the tool defines")
    return cls


def _class_decorator(original: Callable[[Any], Any], helper: str) -> Callable[[Any], Any]:
    """``original(cls)``, which changes ``cls``, for the tool's own classes only."""

    def decorate(cls: Any, /) -> Any:
        return original(_own_class(cls, helper))

    decorate.__name__ = decorate.__qualname__ = original.__name__
    decorate.__doc__ = original.__doc__
    return decorate


def dataclass(cls: Any = None, /, **options: Any) -> Any:
    """``dataclasses.dataclass`` (bare or with options) for the tool's own classes only."""
    if cls is None:
        return lambda cls: dataclass(cls, **options)
    return dataclasses.dataclass(_own_class(cls, "dataclasses.dataclass"), **options)


def pydantic_dataclass(cls: Any = None, /, **options: Any) -> Any:
    """``pydantic.dataclasses.dataclass`` (bare or with options) for the tool's own classes only."""
    import pydantic.dataclasses  # noqa: PLC0415 - pydantic is loaded where tool code runs

    if cls is None:
        return lambda cls: pydantic_dataclass(cls, **options)
    return pydantic.dataclasses.dataclass(_own_class(cls, "pydantic.dataclasses.dataclass"), **options)


def _owned_decorator(original: Callable[..., Any], helper: str) -> Callable[..., Any]:
    """``original(obj)`` that sets attributes on ``obj``, for the tool's own classes and functions only."""

    def decorate(obj: Any) -> Any:
        return original(_own(obj, helper))

    decorate.__name__ = decorate.__qualname__ = original.__name__
    decorate.__doc__ = original.__doc__
    return decorate


def dataclass_replace(obj: Any, /, **changes: Any) -> Any:
    """``dataclasses.replace`` for instances of the tool's own dataclasses."""
    _own_class(type(obj), "dataclasses.replace")
    return dataclasses.replace(obj, **changes)


def dataclass_transform(**options: Any) -> Callable[[Any], Any]:
    """``typing.dataclass_transform(...)``, whose decorator marks only the tool's own classes and functions."""
    return _owned_decorator(typing.dataclass_transform(**options), "typing.dataclass_transform")


CLASS_HELPERS: dict[str, dict[str, Callable[..., Any]]] = {
    "dataclasses": {
        "dataclass": dataclass,
        "replace": dataclass_replace,
    },
    "functools": {"total_ordering": _class_decorator(functools.total_ordering, "functools.total_ordering")},
    "enum": {"unique": _class_decorator(enum.unique, "enum.unique")},
    "typing": {
        "runtime_checkable": _class_decorator(typing.runtime_checkable, "typing.runtime_checkable"),
        "final": _owned_decorator(typing.final, "typing.final"),
        "no_type_check": _owned_decorator(typing.no_type_check, "typing.no_type_check"),
        "dataclass_transform": dataclass_transform,
    },
    "pydantic.dataclasses": {"dataclass": pydantic_dataclass},
    "abc": {
        "abstractmethod": _owned_decorator(abc.abstractmethod, "abc.abstractmethod"),
        "update_abstractmethods": _class_decorator(abc.update_abstractmethods, "abc.update_abstractmethods"),
    },
}
"""Module members that change the class or function they are given: the tool's own only (module views)."""
