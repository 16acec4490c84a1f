"""Run-time guards: what the rewritten tool code calls for attributes, items, writes and calls.

The compile-time policy (``sandbox/language/policy.py``) rewrites ``a.b`` to ``_getattr_(a, "b")``,
``a.b = v`` to ``_write_(a).b = v``, ``a.b += v`` to ``_augattr_(a, "b", "+=", v)`` and so on;
this module is the other half. The attribute rule (``is_allowed_attribute``) lives here and is
shared with the annotation checker. The guards are on the hot path: the common case is one
type check and a builtin call.
"""

from __future__ import annotations

import abc
import builtins
import copy
import dataclasses
import enum
import functools
import operator
import string
import sys
import types
import typing
from _string import formatter_field_name_split as _formatter_field_name_split
from collections.abc import Callable, Iterable
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


_armed = False
_arming_hooks: list[Callable[[bool], None]] = []


def on_arming(hook: Callable[[bool], None]) -> None:
    """Call ``hook(armed)`` now and each time ``arm_checks`` arms or disarms this process."""
    _arming_hooks.append(hook)
    hook(_armed)


def arm_checks(armed: bool = True) -> None:
    """Apply the run-time checks to everything this process does from now on (the worker, once).

    The hooks that hold typing, pydantic and Enum to the attribute rule run inside host code
    (pydantic builds a deferred validator while the worker serializes a result; a forward reference
    is evaluated after the tool returned). In a worker everything after its first tool code is
    tool-driven, so the checks must not depend on a tool frame being on the stack. A call under
    ``walls="process"`` disarms them (``armed=False``): its code has the real builtins, the process
    wall is its boundary, and it runs as plain CPython, pydantic and Enum included.
    """
    global _armed
    _armed = armed
    for hook in _arming_hooks:
        hook(armed)


def checks_apply() -> bool:
    """True while tool code is on the stack, and in an armed process unless the zygote is importing a module."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == TOOL_MODULE_NAME:
            return True
        if _imports_exempt and frame.f_code.co_filename.startswith("<frozen importlib"):
            return False
        frame = frame.f_back
    return _armed


def end_import_exemption() -> None:
    """In a worker, before its first job: the checks apply inside imports too, from now on.

    The zygote imports libraries (``warmup``) with the checks off: no tool code has run in it. In
    a worker an import may run while objects of the tool's are alive, and a finalizer (or a cache
    evicting a key of the tool's) can call a host function with the tool's arguments in the
    middle of it: exempt, ``typing.get_type_hints`` evaluated a tool's string with the real builtins.
    """
    global _imports_exempt
    _imports_exempt = False


_imports_exempt = True


def imports_checked() -> bool:
    """Whether a module imported now would run under the checks (in a worker, under the language
    wall), where library code fails them: such a library must be loaded by the zygote."""
    return not _imports_exempt and checks_apply()


def restricted_code_running() -> bool:
    """True where the language wall applies (``checks_apply``), unless a ``walls="process"`` tool is what runs."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name == TOOL_MODULE_NAME:
            return True
        if name == PLAIN_MODULE_NAME:
            return False
        if _imports_exempt and frame.f_code.co_filename.startswith("<frozen importlib"):
            return False
        frame = frame.f_back
    return _armed


def _refuse_code_objects(event: str, args: tuple[Any, ...]) -> None:
    if event == "code.__new__" and restricted_code_running():
        refuse("building code objects is not allowed: tool code runs only the source it was given")


_audit_hook_installed = False


def install_code_hook() -> None:
    """Refuse ``CodeType(...)`` and ``code.replace(...)`` under the language wall (an audit hook: it stays). Idempotent.

    Whatever way tool code finds the ``code`` class, bytecode it builds would run past every
    guard; CPython itself never builds code objects that way while a tool runs (``compile`` and
    imports raise other events).
    """
    global _audit_hook_installed
    if not _audit_hook_installed:
        sys.addaudithook(_refuse_code_objects)
        _audit_hook_installed = True


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


def violation(message: str) -> PolicyViolation:
    """A ``PolicyViolation`` located at the innermost line of tool code on the stack."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") != TOOL_MODULE_NAME:
        frame = frame.f_back
    line = frame.f_lineno if frame is not None else None
    prefix = f"line {line}: " if line is not None else ""
    return PolicyViolation(prefix + message, line=line)


def guarded_getattr(obj: Any, name: str, *default: Any) -> Any:
    """``getattr`` for tool code: public names, else the rule of ``_special_attribute``; safe ``str.format``; never a module."""
    if type(name) is not str:
        refuse("attribute names must be exact strings")
    if name in FORMAT_METHODS and (isinstance(obj, str) or obj is str):
        return _safe_format_method(obj, name)
    if not is_allowed_attribute(name):
        return _special_attribute(obj, name, default)
    if name == "obj" and isinstance(obj, AttributeError):
        return _failed_lookup_target(obj)
    rule = _library_rules.get(type(obj), _UNKNOWN)
    if rule is not None:
        rule = _resolve_rule(obj, rule)
        if rule is not None:
            return _not_a_module(rule.attribute(obj, name, default), name)
    return _not_a_module(getattr(obj, name, *default), name)


def _special_attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
    """A private, dunder or blocked name: what the rule allows, else a refusal that says why."""
    if is_dunder(name):
        if name in DESCRIPTIVE_DUNDERS:
            value = getattr(obj, name, *default)
            if value is None or type(value) is str or (default and value is default[0]):
                return value
            refuse(f"attribute {name!r} of this object is not a string")
        if name == "__class__":
            return guarded_type(obj)
        if name == "__dict__":
            return guarded_vars(obj)
        if name == "__members__" and isinstance(obj, type) and issubclass(obj, enum.Enum):
            return obj.__members__  # Enum's documented mapping of names to members
        if name in DATA_DUNDERS:
            return _plain_data(obj, name, getattr(obj, name, *default), default)
        if name in CHAINED_EXCEPTIONS and isinstance(obj, BaseException):
            return _chained(getattr(obj, name), name)
        if name == "__wrapped__":
            return _tool_function(getattr(obj, name, *default), default)
        if name in ALLOWED_DUNDER_METHODS:
            return _dunder_method(obj, name, default)
        refuse(
            f"access to attribute {name!r} is not allowed: special attributes lead to the interpreter's"
            " internals (type(x), x.__class__, __name__, __doc__, __dict__ of your own objects are available)"
        )
    if name.startswith("_") and _private_allowed(obj, name):
        return _not_a_module(getattr(obj, name, *default), name)
    if name.startswith("_"):
        refuse(
            f"access to attribute {name!r} is not allowed: private names are open on the tool's own"
            " classes and objects, not on those of toolpen or a library"
        )
    if name in FORMAT_METHODS and not isinstance(obj, str):
        owner = _owner(_lookup_classes(obj)[0], name)
        if owner is not None and is_tool_class(owner) and not issubclass(owner, str):
            return getattr(obj, name, *default)  # the tool's own method named format
    refuse(f"access to attribute {name!r} is not allowed: it leads to frames or code")


def _plain_data(obj: Any, name: str, value: Any, default: tuple[Any, ...]) -> Any:
    """``value`` of a data dunder (see ``DATA_DUNDERS``) of the tool's own class or instance, or of an exception."""
    if not (is_tool_class(obj) or is_tool_class(type(obj)) or isinstance(obj, BaseException)):
        refuse(f"attribute {name!r} is available on the tool's own classes and objects only")
    if default and value is default[0]:
        return value
    if value is None or type(value) in (bool, str):
        return value
    if type(value) in (tuple, frozenset, list) and all(type(item) is str for item in value):
        return value
    refuse(f"attribute {name!r} of this object is not plain data (strings in a tuple, list or frozenset)")


def _chained(value: BaseException | None, name: str) -> BaseException | None:
    """``exc.__cause__``/``__context__``: an exception the tool caught, or one of its own classes never raised.

    A chain can hold an exception raised and caught inside host code (a library's internal
    ``AttributeError`` and its ``obj``); the frame that caught an exception heads its traceback.
    """
    if value is None:
        return None
    traceback = value.__traceback__
    if traceback is not None and traceback.tb_frame.f_globals.get("__name__") == TOOL_MODULE_NAME:
        return value
    if traceback is None and is_tool_class(type(value)):
        return value
    refuse(
        f"{name} is available when it is an exception the tool caught itself, and this one was caught"
        " inside a library; keep the exception you catch (except E as error: raise X from error)"
        " or run with --walls process"
    )


def _failed_lookup_target(error: AttributeError) -> Any:
    """``AttributeError.obj``: the object a lookup failed on, when the lookup was the tool's own (its
    code, or a C function it called, raised it) or the object is of the tool's classes.

    A library's failed lookup would otherwise hand the tool whatever object the library held (an
    internal of the library's, or of toolpen's proxies).
    """
    value = error.obj
    if value is None or is_tool_class(type(value)):
        return value
    frame = None  # the innermost frame of the traceback outside this module (the guards raise for the tool)
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_globals.get("__name__") != __name__:
            frame = traceback.tb_frame
        traceback = traceback.tb_next
    if frame is not None and frame.f_globals.get("__name__") == TOOL_MODULE_NAME:
        return value
    refuse(
        "AttributeError.obj is available for a lookup the tool made itself, and this one failed inside"
        " a library (its name is in .name); or run with --walls process"
    )


def _tool_function(value: Any, default: tuple[Any, ...]) -> Any:
    """``f.__wrapped__`` (``functools.wraps``, ``lru_cache``): the tool's own function or class only."""
    if default and value is default[0]:
        return value
    own_function = (
        isinstance(value, types.FunctionType) and value.__globals__.get("__name__") == TOOL_MODULE_NAME
    )
    if own_function or is_tool_class(value):
        return value
    refuse("__wrapped__ is available when it is the tool's own function; this one wraps a library's")


def is_dunder(name: str) -> bool:
    """``__name__``-shaped: special to the interpreter."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def is_tool_class(cls: object) -> bool:
    """True for a class whose ``class`` statement (or namedtuple/Enum call) ran in tool code."""
    return (
        isinstance(cls, type) and type.__dict__["__dict__"].__get__(cls).get("__module__") == TOOL_MODULE_NAME
    )


def _class_dict(cls: type) -> types.MappingProxyType[str, Any]:
    return type.__dict__["__dict__"].__get__(cls)  # type: ignore[no-any-return]


def _owner(classes: Iterable[type], name: str) -> type | None:
    """The first class of ``classes`` whose own namespace holds ``name``."""
    for cls in classes:
        if name in _class_dict(cls):
            return cls
    return None


def _lookup_classes(obj: Any) -> tuple[tuple[type, ...], bool]:
    """The classes an attribute of ``obj`` is looked up in, and whether ``obj`` is the tool's own."""
    if isinstance(obj, super):  # a subclass of super too: its lookups are super's
        view: Any = obj
        mro = view.__self_class__.__mro__
        return mro[mro.index(view.__thisclass__) + 1 :], False
    if isinstance(obj, type):
        metaclass: type = type(obj)
        return (*obj.__mro__, *metaclass.__mro__), is_tool_class(obj)
    return type(obj).__mro__, is_tool_class(type(obj))


def _public_api(owner: type | None, obj: Any, name: str) -> bool:
    """NamedTuple's and Enum's documented underscore names, on any namedtuple or enum."""
    kind = owner if owner is not None else (obj if isinstance(obj, type) else type(obj))
    if name in NAMEDTUPLE_API:
        return isinstance(kind, type) and issubclass(kind, tuple)
    if name in ENUM_API:
        return isinstance(kind, type) and issubclass(kind, enum.Enum)
    return False


def _private_allowed(obj: Any, name: str) -> bool:
    """``_name`` is readable where the tool defined it: its own classes and their instances.

    The class that defines ``name`` decides (a host base class keeps its private names); a name
    no class defines belongs to the instance, so to the tool when the instance's class is the tool's.
    """
    if name in ENUM_INTERNALS:
        return False
    classes, own = _lookup_classes(obj)
    owner = _owner(classes, name)
    if _public_api(owner, obj, name):
        return True
    if owner is not None:
        return is_tool_class(owner)
    return own


def _dunder_method(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
    """A special method of the tool's own objects (or through ``super()``); a host class's only for tool instances.

    ``__setattr__``/``__delattr__`` (``object.__setattr__(self, "x", v)`` in a frozen dataclass) check
    the attribute name as ``setattr`` does, whoever defines them.
    """
    if isinstance(obj, super):  # a subclass of super too: its lookups are super's
        bound_to = getattr(obj, "__self__")  # noqa: B009 - typeshed does not know super.__self__
        if not (is_tool_class(bound_to) or is_tool_class(type(bound_to))):
            refuse(f"super().{name} is available in the tool's own classes only")
        if name == "__new__":
            return _for_tool_classes(getattr(obj, name, *default))
        return _checked_setter(getattr(obj, name, *default), name, bound_to)
    if isinstance(obj, type):
        owner = _owner(obj.__mro__, name)
        if owner is None:
            refuse(f"access to attribute {name!r} is not allowed: {obj.__name__} does not define it")
        value = getattr(obj, name, *default)
        if is_tool_class(owner):
            return value
        if name == "__new__":
            return _for_tool_classes(value)
        if owner in VALUE_TYPES and name in VALUE_METHODS:
            return _for_values(value, name)
        return _for_tool_instances(value, name)
    if type(obj) in VALUE_TYPES and name in VALUE_METHODS:
        return getattr(obj, name, *default)  # (1).__add__(2), "ab".__len__(): what the operators do
    if not is_tool_class(type(obj)):
        refuse(f"access to attribute {name!r} is not allowed on objects the tool did not define")
    return _checked_setter(getattr(obj, name, *default), name, obj)


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


def _for_tool_classes(new: Callable[..., Any]) -> Callable[..., Any]:
    """A library's ``__new__`` (``object.__new__``, ``super().__new__``, ``float.__new__``): it makes
    instances of the tool's own classes only, never an uninitialised object of a library class."""

    def call(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_tool_class(cls):
            refuse("__new__ of a library class may only make instances of the tool's own classes")
        return new(cls, *args, **kwargs)

    return call


def _for_values(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A value type's unbound special method (``int.__add__``), on values of exactly such a type or the tool's own."""

    def call(instance: Any, *args: Any, **kwargs: Any) -> Any:
        if type(instance) not in VALUE_TYPES and not is_tool_class(type(instance)):
            refuse(f"{name} of a builtin type may only be called on its own values or the tool's objects")
        return method(instance, *args, **kwargs)

    return call


_ATTRIBUTE_SETTERS = frozenset({"__setattr__", "__delattr__"})


def _checked_setter(method: Any, name: str, target: Any) -> Any:
    """A bound ``__setattr__``/``__delattr__`` that refuses the names ``setattr`` would refuse."""
    if name not in _ATTRIBUTE_SETTERS:
        return method

    def call(attribute: str, *args: Any) -> Any:
        _check_written_name(target, attribute)
        return method(attribute, *args)

    return call


def _for_tool_instances(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """A host class's unbound special method (``Exception.__init__``), callable on tool instances only."""

    def call(instance: Any, *args: Any, **kwargs: Any) -> Any:
        if not is_tool_class(type(instance)):
            refuse(f"{name} of a class may only be called on the tool's own objects")
        if name in _ATTRIBUTE_SETTERS and args:
            _check_written_name(instance, args[0])
        return method(instance, *args, **kwargs)

    return call


def guarded_vars(*args: Any) -> dict[str, Any]:
    """``vars(obj)`` / ``obj.__dict__``: the attributes of the tool's own instances."""
    if len(args) != 1:
        refuse("vars() needs an object: the tool's own instance whose attributes to list")
    obj = args[0]
    if isinstance(obj, type) or not is_tool_class(type(obj)):
        refuse("vars() and __dict__ are available on the tool's own instances only")
    attributes: dict[str, Any] = vars(obj)
    for name, value in attributes.items():
        _not_a_module(value, name)  # a library base class's __init__ could have stored one
    return attributes


def _not_a_module(value: Any, name: str) -> Any:
    if isinstance(value, types.ModuleType):
        refuse(f"attribute {name!r} is a module; import a vetted module instead")
    return value


class _CheckedPatternMeta(type):
    """The metaclass of ``match_class``'s stand-ins: an instance of the pattern's class, read by the guards' rule."""

    pattern_class: type
    positional: int
    __match_args__: tuple[str, ...]

    def __instancecheck__(cls, instance: Any) -> bool:
        if not isinstance(instance, cls.pattern_class):
            return False
        for name in cls.__match_args__[: cls.positional]:
            _check_pattern_attribute(instance, name)
        return True


def _check_pattern_attribute(instance: Any, name: str) -> None:
    if (is_allowed_attribute(name) and name not in LIBRARY_CLOSED_NAMES) or (
        name.startswith("_") and not is_dunder(name) and _private_allowed(instance, name)
    ):
        return
    refuse(
        f"a class pattern would read attribute {name!r} of this object by position (__match_args__),"
        " which the guards do not allow; match on public attributes by keyword instead"
    )


@functools.lru_cache(maxsize=256)
def _checked_pattern_class(cls: type, match_args: tuple[str, ...], positional: int) -> type:
    checked = _CheckedPatternMeta(cls.__name__, (), {"__slots__": (), "__match_args__": match_args})
    checked.pattern_class = cls
    checked.positional = positional
    return checked


def match_class(cls: Any, positional: int) -> Any:
    """The class of ``case cls(p1, p2, ...)``: CPython reads ``subject.<cls.__match_args__[i]>`` unguarded.

    ``__match_args__`` comes from field names (the tool's dataclasses and namedtuples may have
    fields named ``gi_frame`` or ``_rpc``) and ``isinstance`` can be made true of host objects
    (``abc.ABC.register``, runtime-checkable protocols), so the policy hands each class pattern
    with positional sub-patterns this stand-in: it matches what ``cls`` matches, with the same
    ``__match_args__`` (copied to exact ``str``), and refuses a subject whose attributes by
    those names tool code could not read with ``getattr``.
    """
    if not isinstance(cls, type):
        return cls  # CPython's own TypeError
    match_args = getattr(cls, "__match_args__", None)
    if type(match_args) is not tuple:
        return cls  # no positional reads: ``int(x)`` binds the subject, others raise TypeError
    exact = tuple(exact_str(name, "a __match_args__ entry") for name in match_args)
    return _checked_pattern_class(cls, exact, positional)


guarded_getitem = operator.getitem
"""``obj[key]``: items hold no path to frames or globals, so the builtin itself is the guard."""


def guarded_hasattr(obj: Any, name: str) -> bool:
    """``hasattr`` as CPython answers it; a private name on a host object is refused, as reading it is."""
    if type(name) is not str:
        raise TypeError("hasattr(): attribute name must be string")
    if is_allowed_attribute(name) or is_dunder(name) or name in BLOCKED_ATTRIBUTES:
        return hasattr(obj, name)  # only the answer leaves: the value is never handed out
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def guarded_write(obj: Any, name: str | None = None) -> Any:
    """The target of ``obj.x = v`` / ``obj[k] = v`` / ``del``: refuse shared host objects.

    ``name`` is given for private and special attribute names: a ``_name`` may be set on the
    tool's own classes and instances only, and of the special names only ``__name__``,
    ``__qualname__`` and ``__doc__``.
    """
    kind = type(obj)
    if kind in _PLAIN_CONTAINERS and name is None:
        return obj
    if isinstance(obj, _SHARED_KINDS) and getattr(obj, "__module__", None) != TOOL_MODULE_NAME:
        refuse(
            f"cannot modify {getattr(obj, '__name__', kind.__name__)!r}: it is shared with the library, not defined by"
            " the tool; subclass it or keep your own value instead"
        )
    if issubclass(kind, types.ModuleType) or getattr(kind, "read_only_view", False):
        refuse(
            "cannot modify a module: modules are shared read-only views; keep your own values in variables"
        )
    if issubclass(kind, dataclasses.Field):  # a subclass too: dataclass() takes any Field instance
        # asdict/astuple/replace read ``getattr(obj, field.name)`` unguarded: the name stays the class's
        refuse("cannot modify a dataclass field definition")
    if name is not None:
        _check_written_name(obj, name)
    return obj


def _check_written_name(obj: Any, name: str) -> None:
    if type(name) is not str:
        refuse("attribute names must be strings")
    if is_allowed_attribute(name):
        return
    if is_dunder(name):
        if name not in WRITABLE_DUNDERS:
            refuse(
                f"cannot set attribute {name!r}: special attributes other than __name__ and __doc__ are fixed"
            )
        return
    own = is_tool_class(obj) or is_tool_class(type(obj))
    if not name.startswith("_") or not own or name in ENUM_INTERNALS:
        refuse(f"cannot set attribute {name!r}: private names may be set on the tool's own objects only")


def guarded_setattr(obj: Any, name: str, value: Any) -> None:
    """``setattr`` for tool code, under the same rules as ``obj.name = value``."""
    setattr(guarded_write(obj, name), name, value)


def guarded_delattr(obj: Any, name: str) -> None:
    """``delattr`` for tool code, under the same rules as ``del obj.name``."""
    delattr(guarded_write(obj, name), name)


def augmented_attribute(obj: Any, name: str, op: str, value: Any) -> None:
    """``obj.name <op>= value`` with ``obj`` evaluated once: guarded read, operator, guarded write."""
    result = INPLACE_OPERATORS[op](guarded_getattr(obj, name), value)
    setattr(guarded_write(obj, name), name, result)


def augmented_item(obj: Any, key: Any, op: str, value: Any) -> None:
    """``obj[key] <op>= value`` with ``obj`` and ``key`` evaluated once."""
    target = guarded_write(obj)
    target[key] = INPLACE_OPERATORS[op](target[key], value)


def guarded_apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)`` from tool code: keyword names, copied to exact ``str``, may not start with ``_``."""
    keywords: dict[str, Any] = {}
    for key, value in kwargs.items():
        name = exact_str(key, "a keyword argument name")
        if name.startswith("_"):
            refuse(
                f"keyword argument {name!r} is not allowed: names starting with _ reach internal parameters; use public ones"
            )
        if name in keywords:
            raise TypeError(f"got multiple values for keyword argument {name!r}")
        keywords[name] = value
    return function(*args, **keywords)


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
        refuse(
            "type() of a class is not available: metaclasses build classes; compare classes with `is` or"
            " issubclass(), or run with --walls process"
        )
    if kind.__module__ == "pydantic_core._pydantic_core" and kind.__name__ in _RAW_SCHEMA_CLASSES:
        # they build validators from a raw core schema, past the alias check of sandbox/language/pydantic_wall.py
        refuse(f"type() of a pydantic {kind.__name__} is not available")
    return TYPE_STAND_INS.get(kind, kind)


def guarded_build_class(body: Any, name: Any, /, *bases: Any, **keywords: Any) -> Any:
    """``__build_class__`` for tool code: a class statement may not make a metaclass nor derive from a library class.

    Every class it makes is checked and closed by ``check_tool_class``.

    A base that is ``type`` itself or a subclass of it (reached through ``__mro_entries__`` of
    ``type[int]`` or ``typing.Type``, whose origin is the real ``type``) would make the class a
    metaclass: calling it builds classes with any namespace (``__hash__``/``__eq__`` of classes,
    special methods a class body may not define), past the policy and ``guarded_type``. The class
    built is what is checked (bases resolved twice could differ).
    """
    cls = builtins.__build_class__(body, name, *bases, **keywords)
    if isinstance(cls, type):
        check_tool_class(cls, name)
    return cls


def check_tool_class(cls: type, name: object) -> None:
    """What every class tool code makes (a class statement, ``Enum``'s functional API) must be:
    no metaclass and no library class among its bases; and it gets the descriptors closing numpy's
    array interface and ``copy``'s special methods (``close_array_interface``, ``close_instance_methods``)."""
    if issubclass(cls, type):
        refuse(
            "a class may not derive from type (a metaclass builds classes past the sandbox's rules);"
            " write ordinary classes"
        )
    for base in cls.__mro__[
        1:
    ]:  # numpy's and protobuf's classes: an allowlist would refuse the subclass's names
        rule = _rule_for_class(base)
        if rule is not None and rule is not _CLASS and not rule.subclassable:
            refuse(
                f"class {name!r} cannot derive from {_class_name(base)}: toolpen offers that library's"
                " classes to use, not to subclass"
            )
    close_array_interface(cls)
    close_instance_methods(cls)
    _check_new_results(cls)


NEW_RESULTS = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)
"""What a tool class's ``__new__`` may return besides the tool's own objects: immutable values."""


def _check_new_results(cls: type) -> None:
    """A ``__new__`` the class defines returns the tool's own objects (or an immutable value) only.

    Library code that makes an instance calls ``cls.__new__(cls)`` and then writes into what it got:
    pydantic's ``__copy__`` sets its ``__dict__``, ``copy`` its state. A ``__new__`` answering a
    function had pydantic's ``model_copy`` give the function a ``__dict__`` holding numpy's array
    interface (raw memory: the real builtins), and one answering an array had ``copy`` call
    ``ndarray.__setstate__``. Whatever the class holds as ``__new__`` (a function, a classmethod,
    a ``functools.partial``) is called as CPython would, through its descriptor, then checked.
    """
    original = _class_dict(cls).get("__new__")
    if original is None or getattr(original, "checks_new_results", False):
        return  # none of its own: an inherited one is checked already

    def __new__(kind: type, *args: Any, **kwargs: Any) -> Any:
        getter = getattr(type(original), "__get__", None)
        made = (original if getter is None else getter(original, None, kind))(kind, *args, **kwargs)
        if not (kind in type(made).__mro__ or is_tool_class(type(made)) or type(made) in NEW_RESULTS):
            refuse(
                f"{_class_name(kind)}.__new__ returned a {_class_name(type(made))}: a class's __new__ returns"
                " the tool's own objects (or an immutable value) only"
            )
        return made

    checked = staticmethod(__new__)
    checked.checks_new_results = True  # type: ignore[attr-defined]
    type.__setattr__(cls, "__new__", checked)


class _GuardedTypeAlias(types.GenericAlias):
    """``type[X]`` in tool code: the same alias for annotations, but calling it is ``guarded_type``."""

    def __call__(self, *args: Any, **kwargs: Any) -> type:
        if kwargs:
            refuse("type() takes no keyword arguments in tool code")
        return guarded_type(*args)


class _GuardedTypeMeta(type):
    """Makes ``type`` in tool code answer ``isinstance``/``issubclass`` as the real one while calls stay guarded."""

    def __call__(cls, *args: Any) -> type:  # type: ignore[override]
        return guarded_type(*args)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, type)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, type)

    def __repr__(cls) -> str:
        return "<class 'type'>"


class GuardedType(metaclass=_GuardedTypeMeta):
    """The builtin ``type`` of tool code: ``type(x)`` is ``guarded_type(x)``; ``isinstance(x, type)`` works."""

    __slots__ = ()

    def __class_getitem__(cls, item: Any) -> Any:
        return _GuardedTypeAlias(type, item)


GuardedType.__name__ = GuardedType.__qualname__ = "type"
GuardedType.__module__ = "builtins"


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
    return _SAFE_FORMATTER.vformat(exact_str(template, "a format string"), args, kwargs)


def safe_format_map(template: str, mapping: Any, /) -> str:
    """``template.format_map(mapping)`` with guarded field lookups."""
    return _SAFE_FORMATTER.vformat(exact_str(template, "a format string"), (), mapping)


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


def is_tool_owned(obj: object) -> bool:
    """True for the tool's own classes and functions (and methods wrapping its functions)."""
    if isinstance(obj, classmethod | staticmethod):
        obj = obj.__func__
    elif isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, types.FunctionType):
        return obj.__globals__.get("__name__") == TOOL_MODULE_NAME
    return is_tool_class(obj)


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


def guarded_deepcopy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy`` whose memo never reaches tool code with host internals in it.

    The memo ends up holding a copy of every object the copy went through, private attributes of
    host objects included, and (under ``id(memo)``) the originals. The copy here runs on a memo of
    its own, seeded from the tool's; the tool's memo only learns ``memo[id(value)]`` (and keeps
    ``value``, which the tool passed, alive under ``id(memo)`` as ``deepcopy`` does).
    """
    if memo is None:
        return copy.deepcopy(value)
    private = dict(memo)
    private.pop(id(memo), None)
    result = copy.deepcopy(value, private)
    memo[id(value)] = result
    memo.setdefault(id(memo), []).append(value)
    return result


# --- library types: attributes through a rule of their own (numpy, protobuf) ---


@dataclasses.dataclass(frozen=True)
class LibraryRule:
    """How tool code reads the public attributes of a library's objects (and of its classes).

    ``attribute(obj, name, default)`` answers ``obj.name`` as tool code may have it, or refuses;
    ``subclassable`` says whether a tool class may derive from such a class (an allowlist of
    the library's names would refuse the subclass's own).
    """

    attribute: Callable[[Any, str, tuple[Any, ...]], Any]
    subclassable: bool = False


LibraryRuleFinder = Callable[[type], LibraryRule | None]
_rule_finders: list[LibraryRuleFinder] = []
_UNKNOWN = LibraryRule(attribute=lambda obj, name, default: None)  # a type not yet looked at
_CLASS = LibraryRule(attribute=lambda obj, name, default: None)  # a metaclass: the rule is the class's own
_library_rules: dict[type, LibraryRule | None] = {}
TYPE_STAND_INS: dict[type, Any] = {}
"""What ``type(x)`` answers for library classes whose real class tool code may not call (``numpy.ndarray``)."""

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


def register_library_types(finder: LibraryRuleFinder) -> None:
    """Add ``finder``: given a class, the rule for it (its instances and itself), or None."""
    _rule_finders.append(finder)
    _library_rules.clear()


def _rule_for_class(cls: type) -> LibraryRule | None:
    try:
        return _library_rules[cls]
    except KeyError:
        pass
    rule: LibraryRule | None = None
    if issubclass(cls, type | super):  # a subclass of super too: its lookups are the bound class's
        rule = _CLASS
    else:
        for finder in _rule_finders:
            rule = finder(cls)
            if rule is not None:
                break
    _library_rules[cls] = rule
    return rule


def _resolve_rule(obj: Any, rule: LibraryRule | None) -> LibraryRule | None:
    """The rule for ``obj``: its class's, a class's own when ``obj`` is one, the bound class's for ``super``."""
    if rule is _UNKNOWN:
        rule = _rule_for_class(type(obj))
    if rule is _CLASS:
        if isinstance(obj, super):
            bound = obj.__self_class__ or obj.__thisclass__  # type: ignore[attr-defined]  # not in typeshed's super
            rule = _rule_for_class(bound)
        else:
            rule = _rule_for_class(obj)
        return None if rule is _CLASS else rule
    return rule


def library_rule(obj: Any) -> LibraryRule | None:
    """The library rule that applies to reading ``obj``'s attributes, if any."""
    return _resolve_rule(obj, _UNKNOWN)


def allowlisted(
    names: frozenset[str], library: str, check: Callable[[Any], Any] | None = None
) -> LibraryRule:
    """A rule reading only ``names`` (each result passed through ``check``, when given)."""

    def attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
        if name not in names:
            refuse(f"{library}: attribute {name!r} of {_class_name(obj)} is not available in toolpen")
        value = getattr(obj, name, *default)
        return value if check is None else check(value)

    return LibraryRule(attribute)


def _class_name(obj: Any) -> str:
    kind = obj if isinstance(obj, type) else obj.__self_class__ if isinstance(obj, super) else type(obj)  # type: ignore[attr-defined]  # not in typeshed's super
    return str(type.__dict__["__name__"].__get__(kind))


class _NoArrayInterface:
    """``__array_interface__``/``__array_struct__`` of objects whose attributes tool code controls: None.

    numpy reads these by attribute from any object it is given (an operator, an index, any
    function), and a dict there names a raw memory address it will read and write. A data
    descriptor on the class wins over the instance's ``__dict__`` (which ``vars()`` hands out) and
    over ``__getattr__``; numpy refuses None.
    """

    __slots__ = ()

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else None

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError("the array interface of this object is fixed")

    def __delete__(self, obj: Any) -> None:
        raise AttributeError("the array interface of this object is fixed")


ARRAY_INTERFACE_NAMES = ("__array_interface__", "__array_struct__")
_NO_ARRAY_INTERFACE = _NoArrayInterface()


class ClassMethodOnly:
    """A special method the ``copy`` module looks up on the instance (``__deepcopy__``, ``__reduce_ex__``,
    ``__reduce__``, ``__getstate__``), answered from the class only: never from an instance's
    ``__dict__`` (which ``vars()`` hands out) nor its ``__getattr__``; None where no class defines it.

    ``copy.copy`` and ``copy.deepcopy`` (and ``dataclasses.asdict``, ``replace``, pydantic's deep copies)
    call a ``__reduce_ex__`` found there and rebuild the copy from what it returns: any callable and
    its arguments, then ``y.__setstate__(state)`` (or ``y.__dict__.update``, ``setattr``) on whatever
    that callable returned, a library object included (``ndarray.__setstate__`` turned an array with
    a memoryview over it into an object array, whose pointers the view then wrote: the real
    builtins). A ``__deepcopy__`` found there is handed the copy's memo, which by then holds copies
    (and the originals) of the private state of host objects copied before it. A ``__getstate__``
    found there set any attribute of the copy, ``__class__`` included (a tool object became a
    host class's instance with private attributes of the tool's choosing). A class body cannot
    define these names; this data descriptor wins over the instance's ``__dict__`` and over
    ``__getattr__``, and answers what the class and its bases define, as CPython would without them.
    """

    __slots__ = ("_name", "_own")

    def __init__(self, name: str, own: Any) -> None:
        self._name = name
        self._own = own  # what the class itself defined under the name, if anything (Enum's __reduce_ex__)

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        kind = type(obj) if owner is None else owner
        for base in kind.__mro__:
            value = _class_dict(base).get(self._name)
            if isinstance(value, ClassMethodOnly):
                value = value._own
            if value is not None:
                getter = getattr(type(value), "__get__", None)
                return value if getter is None else getter(value, obj, kind)
        return None

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError(f"{self._name} of this object is fixed")

    def __delete__(self, obj: Any) -> None:
        raise AttributeError(f"{self._name} of this object is fixed")


CLASS_ONLY_NAMES = ("__deepcopy__", "__reduce_ex__", "__reduce__", "__getstate__")
"""Names ``copy`` reads from an instance, answered from its class (``ClassMethodOnly``)."""
NEVER_COPIED = (
    *ARRAY_INTERFACE_NAMES,
    *CLASS_ONLY_NAMES,
    "__getnewargs__",
    "__getnewargs_ex__",
)
"""Names ``functools.update_wrapper`` never copies from the wrapped object's ``__dict__`` into the
wrapper's: a wrapper that is not the tool's (a ``functools.partial``) has no descriptors for them,
and ``copy`` and numpy read them from its ``__dict__``."""


def close_instance_methods(cls: type) -> None:
    """Make ``cls`` answer ``CLASS_ONLY_NAMES`` from its class hierarchy, never from an instance's ``__dict__``.

    A ``typing.Protocol`` is left alone, as by ``close_array_interface``: a member it does not
    declare would change what ``isinstance`` checks (a class deriving from it gets its own).
    """
    if _class_dict(cls).get("_is_protocol"):
        return
    for name in CLASS_ONLY_NAMES:
        own = _class_dict(cls).get(name)
        if not isinstance(own, ClassMethodOnly):
            type.__setattr__(cls, name, ClassMethodOnly(name, own))


def close_array_interface(cls: type) -> None:
    """Make ``cls`` (and its subclasses) answer None for numpy's array interface attributes.

    A ``typing.Protocol`` is left alone: it has no instances, and a member it does not declare
    would change what ``isinstance``/``issubclass`` check (a class deriving from it gets its own).
    """
    if _class_dict(cls).get("_is_protocol"):
        return
    for name in ARRAY_INTERFACE_NAMES:
        if not any(isinstance(_class_dict(base).get(name), _NoArrayInterface) for base in cls.__mro__):
            type.__setattr__(cls, name, _NO_ARRAY_INTERFACE)


def close_copy_reconstruct() -> None:
    """``copy.copy``/``deepcopy`` keep a copy of the original's class: ``copy._reconstruct`` rebuilds an
    object by calling what its reducer names, then writes the original's state into the result
    (``y.__setstate__``, ``y.__dict__.update``, ``setattr``, ``append``, ``[key] =``). What that call
    returns must be of the original's class (or a subclass; ``__mro__``, not ``isinstance``, which
    ``ABC.register`` answers): a tool class's ``__new__`` that returned another object (a function)
    had the copy write any attribute into it (numpy's array interface: raw memory), and a method
    whose function the tool renamed rebuilt as ``getattr(obj, name)`` read any attribute
    (``__traceback__``). Under the checks only (``checks_apply``); idempotent."""
    original = copy._reconstruct  # type: ignore[attr-defined]
    if getattr(original, "keeps_the_class", False):
        return

    def _reconstruct(
        x: Any, memo: Any, func: Callable[..., Any], args: Any, *rest: Any, **options: Any
    ) -> Any:
        if not checks_apply():
            return original(x, memo, func, args, *rest, **options)

        def rebuild(*arguments: Any) -> Any:
            result = func(*arguments)
            if type(x) not in type(result).__mro__:
                refuse(
                    f"copy: rebuilding a {_class_name(type(x))} gave a {_class_name(type(result))};"
                    " a copy is of its original's class"
                )
            return result

        return original(x, memo, rebuild, args, *rest, **options)

    _reconstruct.keeps_the_class = True  # type: ignore[attr-defined]
    copy._reconstruct = _reconstruct  # type: ignore[attr-defined]


def close_copied_specials() -> None:
    """``functools.update_wrapper`` (under ``lru_cache``, ``cache``, ``wraps``, ``contextmanager``, ...)
    never copies a name of ``NEVER_COPIED`` from the wrapped object's ``__dict__`` into the
    wrapper's, whose class (a function, a ``functools.partial``, a cache wrapper) cannot hold the
    descriptors (a ``__reduce_ex__`` copied onto a partial made ``copy.copy`` of it call the
    tool's). Idempotent."""
    original = functools.update_wrapper
    if getattr(original, "closes_array_interface", False):
        return

    def update_wrapper(
        wrapper: Any,
        wrapped: Any,
        assigned: Any = functools.WRAPPER_ASSIGNMENTS,
        updated: Any = functools.WRAPPER_UPDATES,
    ) -> Any:
        result = original(wrapper, wrapped, assigned, updated)
        attributes = getattr(wrapper, "__dict__", None)
        if isinstance(attributes, dict):
            for name in NEVER_COPIED:
                attributes.pop(name, None)
        return result

    update_wrapper.closes_array_interface = True  # type: ignore[attr-defined]
    update_wrapper.__doc__ = original.__doc__
    functools.update_wrapper = update_wrapper
