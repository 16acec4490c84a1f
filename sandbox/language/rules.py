"""The language wall's rules as data: which names tool code may read, write, define and call, and whose an object is.

Every other module of the wall reads its decisions from here: the compile-time policy
(``policy.py``) refuses what these tables refuse where the source shows it, and the run-time
guards (``guards.py``) where only the running program does; the annotation checker, the pydantic
and Enum hooks and the library views hold the names they meet to the same ``is_allowed_attribute``.
So a rule changes in one place, and a reviewer reads the whole name policy in one file. What
belongs to the tool is decided by one fact CPython keeps for us: ``__module__`` in a class's own
namespace (``is_tool_class``), which tool code cannot set (the ``functools.wraps`` of
``replacements.py`` copies no ``__module__``). A refusal is always a ``PolicyViolation`` located at
the tool's line (``refuse``).
"""

from __future__ import annotations

import operator
import sys
import types
from collections.abc import Callable
from typing import Any, NoReturn

from sandbox.common.errors import PolicyViolation

TOOL_MODULE_NAME = "toolpen_tool"
"""``__name__`` of every tool's globals, and so ``__module__`` of what tool code defines."""
PLAIN_MODULE_NAME = "toolpen_plain_tool"
"""``__name__`` of a ``walls="process"`` tool's globals: plain CPython, which the language wall's hooks leave alone."""

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
        # an asyncio task's stack: the running task's frames go on into the worker's event loop and main
        "get_stack",
        "print_stack",
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
        "__new__",
        "__init__",
        "__init_subclass__",
        "__setattr__",
        "__delattr__",
        "__format__",
        "__getattr__",
        "__reversed__",
        "__int__",
        "__float__",
        "__complex__",
        "__index__",
        "__round__",
        "__trunc__",
        "__floor__",
        "__ceil__",
        "__bytes__",
        "__pos__",
        "__invert__",
        "__pow__",
        "__rpow__",
        "__rtruediv__",
        "__rfloordiv__",
        "__rmod__",
        "__divmod__",
        "__rdivmod__",
        "__matmul__",
        "__rmatmul__",
        "__xor__",
        "__rxor__",
        "__rand__",
        "__ror__",
        "__lshift__",
        "__rlshift__",
        "__rshift__",
        "__rrshift__",
        "__iadd__",
        "__isub__",
        "__imul__",
        "__itruediv__",
        "__ifloordiv__",
        "__imod__",
        "__ipow__",
        "__iand__",
        "__ior__",
        "__ixor__",
        "__aiter__",
        "__anext__",
        "__aenter__",
        "__aexit__",
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
"""Special methods a class body may define, and call on the tool's own objects or through ``super()``."""
IMPLICIT_METHODS = frozenset({"__get__", "__set__", "__delete__", "__set_name__", "__dir__", "__copy__"})
"""Special methods a class body may define but tool code may not read: the interpreter and the
standard library call them on the tool's own classes and instances (descriptors, ``dir()``,
``copy.copy``); read off a host class they would run host code on host objects
(``cached_property.__get__`` writes into any instance's ``__dict__``). ``__deepcopy__`` is not among
them: it would be handed the private memo of ``guarded_deepcopy``."""

DESCRIPTIVE_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__", "__module__"})
"""Special attributes readable on anything: they are strings (or None)."""
DATA_DUNDERS = frozenset(
    {
        "__slots__",
        "__match_args__",
        "__required_keys__",
        "__optional_keys__",
        "__total__",
        "__abstractmethods__",
        "__suppress_context__",
        "__notes__",
    }
)
"""Special attributes readable on the tool's own classes and objects (and on any exception) when they
hold plain data: a bool, a string, or a tuple, list or frozenset of strings."""
CHAINED_EXCEPTIONS = frozenset({"__cause__", "__context__"})
"""An exception's chain: readable when the exception it holds was caught by tool code (see ``_chained``)."""
WRITABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__"})
"""Special attributes tool code may set (a hand-written decorator copies them), on its own objects."""
READABLE_DUNDERS = (
    DESCRIPTIVE_DUNDERS
    | DATA_DUNDERS
    | CHAINED_EXCEPTIONS
    | {"__class__", "__dict__", "__members__", "__wrapped__"}
    | ALLOWED_DUNDER_METHODS
)
"""Every special attribute name the compile-time policy lets through to the run-time rule."""

NAMEDTUPLE_API = frozenset({"_make", "_asdict", "_replace", "_fields", "_field_defaults"})
ENUM_API = frozenset(
    {
        "_missing_",
        "_generate_next_value_",
        "_value_",
        "_name_",
        "_member_names_",
        "_member_map_",
        "_value2member_map_",
        "_ignore_",
        "_order_",
    }
)
"""The documented underscore names of namedtuples and enums, readable on any of them."""
ENUM_INTERNALS = frozenset({"_new_member_"})
"""Enum machinery the tool's own enum classes hold but never define: ``object.__new__`` itself."""

RESERVED_NAMES = frozenset(
    {
        "_getattr_",
        "_getitem_",
        "_getiter_",
        "_write_",
        "_apply_",
        "_augattr_",
        "_augitem_",
        "_iter_unpack_sequence_",
        "_unpack_sequence_",
        "_inplacevar_",
        "_print_",
        "_print",
        "_match_class_",
    }
)
"""The names of the guards in tool globals: tool code may never bind or read them itself."""
MATCH_CLASS_PREFIX = "_match_class_"
"""``_match_class_`` and the policy's temporaries for class patterns (``_match_class_0_``, ...): reserved too."""

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

VALUE_TYPES = frozenset({int, float, complex, bool, str, bytes, bytearray, list, tuple, dict, set, frozenset})
"""The builtin value types: their special methods do what the operators and builtins do on them."""
VALUE_METHODS = ALLOWED_DUNDER_METHODS - {
    "__init__",
    "__init_subclass__",
    "__setattr__",
    "__delattr__",
    "__getattr__",
}
"""The special methods of a value type tool code may call (``functools.reduce(int.__add__, ...)``):
not the ones that set up or change an object's attributes."""

LIBRARY_CLOSED_NAMES = frozenset(
    {
        "ctypes",  # numpy arrays and bit generators: raw pointers and C function pointers
        "tofile",  # numpy: writes a file
        "dump",  # numpy: pickles into a file
        "dumps",  # numpy: pickles the objects an object array holds, private state included
        "resize",  # numpy: resize(..., refcheck=False) frees the memory other views of the array still use
        "bit_generator",  # numpy.random.Generator: its ctypes/cffi interface
        "DESCRIPTOR",  # protobuf: descriptors lead to the process-wide descriptor pool
        "RegisterExtension",  # protobuf: changes a message class for the whole process
    }
)
"""Public names closed on library objects that code outside the guards could read by name: class
patterns of ``match`` (``case object(ctypes=c)``) and pydantic's ``from_attributes``. Both refuse
them whatever the object; the guards refuse them, and every other name not on a library type's
allowlist, on the library's objects only."""

GUARD_MODULES = frozenset(
    f"sandbox.language.{name}"
    for name in (
        "rules",
        "arming",
        "guards",
        "classes",
        "formatting",
        "replacements",
        "library_rules",
        "array_interface",
        "copy_protocol",
        "keyword_holders",
    )
)
"""The modules of the guards themselves. A frame of theirs in a traceback is the guards acting for
the tool, not a library (``guards.guarded_getattr`` on ``AttributeError.obj``); each of them
checks at import that it is listed (``check_listed``), so a renamed module fails loudly."""


def check_listed(module_name: str) -> None:
    """Refuse to import a guard module that ``GUARD_MODULES`` does not list."""
    if module_name not in GUARD_MODULES:
        raise ImportError(
            f"{module_name} is one of the guards: list it in sandbox.language.rules.GUARD_MODULES"
        )


def is_allowed_attribute(name: object) -> bool:
    """True for attribute names tool code may read: public and not on the blocklist."""
    return type(name) is str and not name.startswith("_") and name not in BLOCKED_ATTRIBUTES


def is_dunder(name: str) -> bool:
    """``__name__``-shaped: special to the interpreter."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def is_tool_class(cls: object) -> bool:
    """True for a class whose ``class`` statement (or namedtuple/Enum call) ran in tool code."""
    return (
        isinstance(cls, type) and type.__dict__["__dict__"].__get__(cls).get("__module__") == TOOL_MODULE_NAME
    )


def class_dict(cls: type) -> types.MappingProxyType[str, Any]:
    """The class's own namespace, read past any ``__dict__`` a metaclass or the class could define."""
    return type.__dict__["__dict__"].__get__(cls)  # type: ignore[no-any-return]


def is_tool_owned(obj: object) -> bool:
    """True for the tool's own classes and functions (and methods wrapping its functions)."""
    if isinstance(obj, classmethod | staticmethod):
        obj = obj.__func__
    elif isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, types.FunctionType):
        return obj.__globals__.get("__name__") == TOOL_MODULE_NAME
    return is_tool_class(obj)


def class_name(obj: Any) -> str:
    """The name of ``obj``'s class (of ``obj`` itself when it is a class; the bound class of a ``super``)."""
    view: Any = obj  # typeshed's super has no __self_class__
    kind = obj if isinstance(obj, type) else view.__self_class__ if isinstance(obj, super) else type(obj)
    return str(type.__dict__["__name__"].__get__(kind))


def exact_str(value: object, what: str = "a name") -> str:
    """``value`` as an exact ``str`` with the same characters, or a refusal.

    A ``str`` subclass may redefine ``__eq__``, ``__hash__``, ``startswith`` or ``__str__`` so that
    the name a guard checks is not the name CPython uses; ``str.__str__`` copies the characters
    CPython itself reads into a plain ``str`` (and returns an exact ``str`` unchanged).
    """
    if not isinstance(value, str):
        refuse(f"{what} must be a string, not {type(value).__name__}")
    return str.__str__(value)


def refuse(message: str) -> NoReturn:
    """Raise a ``PolicyViolation`` located at the innermost line of tool code on the stack."""
    raise violation(message)


def violation(message: str, kind: type[PolicyViolation] = PolicyViolation) -> PolicyViolation:
    """A ``PolicyViolation`` (or ``kind``) located at the innermost line of tool code on the stack."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") != TOOL_MODULE_NAME:
        frame = frame.f_back
    line = frame.f_lineno if frame is not None else None
    prefix = f"line {line}: " if line is not None else ""
    return kind(prefix + message, line=line)
