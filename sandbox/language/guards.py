"""Run-time guards: what the rewritten tool code calls for attributes, items, writes and calls.

The compile-time policy (``sandbox/language/policy.py``) rewrites ``a.b`` to ``_getattr_(a, "b")``,
``a.b = v`` to ``_write_(a).b = v``, ``a.b += v`` to ``_augattr_(a, "b", "+=", v)`` and so on;
this module is the other half. The attribute rule (``is_allowed_attribute``) lives here and is
shared with the annotation checker. The guards are on the hot path: the common case is one
type check and a builtin call.
"""

from __future__ import annotations

import dataclasses
import operator
import string
import sys
import types
import typing
from _string import formatter_field_name_split as _formatter_field_name_split
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

from runtime.errors import PolicyViolation

TOOL_MODULE_NAME = "toolpen_tool"
"""``__name__`` of every tool's globals, and so ``__module__`` of what tool code defines."""

BLOCKED_ATTRIBUTES = frozenset(
    {
        # frames, tracebacks, code: the ways from a value back to someone's globals
        "tb_frame",
        "tb_next",
        "f_back",
        "f_builtins",
        "f_code",
        "f_generator",
        "f_globals",
        "f_locals",
        "f_trace",
        "co_code",
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_await",
        "cr_frame",
        "cr_code",
        "cr_origin",
        "ag_await",
        "ag_frame",
        "ag_code",
        "func_globals",
        "func_code",
        "im_func",
        "im_self",
        # class hierarchy walks (``int.mro()``) lead to ``object`` and its subclasses
        "mro",
        # format-string attribute walks: ``str.format`` gets a guarded replacement at run time
        "format",
        "format_map",
    }
)
FORMAT_METHODS = frozenset({"format", "format_map"})

ALLOWED_DUNDER_METHODS = frozenset(
    {
        "__init__",
        "__post_init__",
        "__repr__",
        "__str__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__bool__",
        "__len__",
        "__iter__",
        "__next__",
        "__contains__",
        "__getitem__",
        "__setitem__",
        "__delitem__",
        "__missing__",
        "__enter__",
        "__exit__",
        "__call__",
        "__add__",
        "__radd__",
        "__sub__",
        "__rsub__",
        "__mul__",
        "__rmul__",
        "__truediv__",
        "__floordiv__",
        "__mod__",
        "__neg__",
        "__abs__",
        "__and__",
        "__or__",
    }
)
"""Special methods a class body may define, and reach through ``super()``."""

INPLACE_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "|=": operator.ior,
    "^=": operator.ixor,
    "&=": operator.iand,
    "@=": operator.imatmul,
}

_SHARED_KINDS = (
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.BuiltinMethodType,
)
_PLAIN_CONTAINERS = frozenset({dict, list, set, bytearray})


def is_allowed_attribute(name: object) -> bool:
    """True for attribute names tool code may read: public and not on the blocklist."""
    return type(name) is str and not name.startswith("_") and name not in BLOCKED_ATTRIBUTES


def tool_code_on_stack() -> bool:
    """True when tool code is running below the caller, and not through a host module being imported."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == TOOL_MODULE_NAME:
            return True
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return False
        frame = frame.f_back
    return False


def refuse(message: str) -> NoReturn:
    """Raise a ``PolicyViolation`` located at the innermost line of tool code on the stack."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") != TOOL_MODULE_NAME:
        frame = frame.f_back
    line = frame.f_lineno if frame is not None else None
    prefix = f"line {line}: " if line is not None else ""
    raise PolicyViolation(prefix + message, line=line)


def guarded_getattr(obj: Any, name: str, *default: Any) -> Any:
    """``getattr`` for tool code: public names only, safe ``str.format``, never a module."""
    if name in FORMAT_METHODS and (isinstance(obj, str) or obj is str):
        return _safe_format_method(obj, name)
    if not is_allowed_attribute(name) and not (type(obj) is super and name in ALLOWED_DUNDER_METHODS):
        refuse(f"access to attribute {name!r} is not allowed")
    value = getattr(obj, name, *default)
    if type(value) is types.ModuleType:
        refuse(f"attribute {name!r} is a module; import a vetted module instead")
    return value


guarded_getitem = operator.getitem
"""``obj[key]``: items hold no path to frames or globals, so the builtin itself is the guard."""


def guarded_hasattr(obj: Any, name: str) -> bool:
    """``hasattr`` that answers False for names tool code may not read."""
    return is_allowed_attribute(name) and hasattr(obj, name)


def guarded_write(obj: Any) -> Any:
    """The target of ``obj.x = v`` / ``obj[k] = v`` / ``del``: refuse shared host objects."""
    kind = type(obj)
    if kind in _PLAIN_CONTAINERS:
        return obj
    if isinstance(obj, _SHARED_KINDS) and getattr(obj, "__module__", None) != TOOL_MODULE_NAME:
        refuse(f"cannot modify {getattr(obj, '__name__', kind.__name__)!r}: it is not defined by the tool")
    if kind is types.ModuleType or getattr(kind, "read_only_view", False):
        refuse("cannot modify a module")
    if kind is dataclasses.Field:
        # asdict/astuple/replace read ``getattr(obj, field.name)`` unguarded: the name stays the class's
        refuse("cannot modify a dataclass field definition")
    return obj


def guarded_setattr(obj: Any, name: str, value: Any) -> None:
    """``setattr`` for tool code, under the same rules as ``obj.name = value``."""
    if not is_allowed_attribute(name):
        refuse(f"cannot set attribute {name!r}")
    setattr(guarded_write(obj), name, value)


def guarded_delattr(obj: Any, name: str) -> None:
    """``delattr`` for tool code, under the same rules as ``del obj.name``."""
    if not is_allowed_attribute(name):
        refuse(f"cannot delete attribute {name!r}")
    delattr(guarded_write(obj), name)


def augmented_attribute(obj: Any, name: str, op: str, value: Any) -> None:
    """``obj.name <op>= value`` with ``obj`` evaluated once: guarded read, operator, guarded write."""
    result = INPLACE_OPERATORS[op](guarded_getattr(obj, name), value)
    setattr(guarded_write(obj), name, result)


def augmented_item(obj: Any, key: Any, op: str, value: Any) -> None:
    """``obj[key] <op>= value`` with ``obj`` and ``key`` evaluated once."""
    target = guarded_write(obj)
    target[key] = INPLACE_OPERATORS[op](target[key], value)


def guarded_apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)`` from tool code: keyword names may not start with ``_``."""
    for key in kwargs:
        if key.startswith("_"):
            refuse(f"keyword argument {key!r} is not allowed")
    return function(*args, **kwargs)


def guarded_dir(obj: Any) -> list[str]:
    """``dir(obj)`` without the names tool code may not read (``dir()`` needs an argument)."""
    return [name for name in dir(obj) if is_allowed_attribute(name)]


_RAW_SCHEMA_CLASSES = frozenset({"SchemaValidator", "SchemaSerializer"})


def guarded_type(*args: Any) -> type:
    """``type(obj)``: one argument only, and never a metaclass (no class factories)."""
    if len(args) != 1:
        refuse("type() with three arguments (class creation) is not allowed; use a class statement")
    kind = type(args[0])
    if issubclass(kind, type):
        refuse("type() of a class is not available")
    if kind.__module__ == "pydantic_core._pydantic_core" and kind.__name__ in _RAW_SCHEMA_CLASSES:
        # they build validators from a raw core schema, past the alias check of sandbox/language/pydantic_wall.py
        refuse(f"type() of a pydantic {kind.__name__} is not available")
    return kind


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


class SafeFormatter(string.Formatter):
    """``str.format`` whose ``{0.attr}`` / ``{0[key]}`` fields go through the guards."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> tuple[Any, Any]:
        first, rest = _formatter_field_name_split(field_name)
        value = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            value = guarded_getattr(value, key) if is_attribute else value[key]
        return value, first


_SAFE_FORMATTER = SafeFormatter()


def safe_format(template: str, /, *args: Any, **kwargs: Any) -> str:
    """``template.format(*args, **kwargs)`` with guarded field lookups."""
    return _SAFE_FORMATTER.vformat(str(template), args, kwargs)


def safe_format_map(template: str, mapping: Any, /) -> str:
    """``template.format_map(mapping)`` with guarded field lookups."""
    return _SAFE_FORMATTER.vformat(str(template), (), mapping)


def _safe_format_method(obj: Any, name: str) -> Callable[..., str]:
    method = safe_format if name == "format" else safe_format_map
    if obj is str:
        return method
    return lambda *args, **kwargs: method(obj, *args, **kwargs)


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
