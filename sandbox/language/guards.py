"""Run-time guards: what the rewritten tool code calls for attributes, items, writes and calls.

The compile-time policy (``sandbox/language/policy.py``) rewrites ``a.b`` to ``_getattr_(a, "b")``,
``a.b = v`` to ``_write_(a).b = v``, ``a.b += v`` to ``_augattr_(a, "b", "+=", v)`` and so on;
this module is the other half, with the builtins that read or write attributes by name
(``getattr``, ``setattr``, ``hasattr``, ``vars``, ``dir``) and the class patterns of ``match``. What
a name may do is decided in ``rules.py``; whose an object is, by its class (``rules.is_tool_class``).
A library's objects are read through its rule (``library_rules.py``), ``str.format`` through
``formatting.py``, ``type`` and class statements through ``classes.py``. The guards are on the
hot path: the common case is one type check and a builtin call.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import operator
import types
from collections.abc import Callable, Iterable
from typing import Any

from sandbox.language.classes import guarded_type
from sandbox.language.formatting import GuardedFormat
from sandbox.language.library_rules import CACHED_RULES, NOT_LOOKED_UP, SAFE_FORMAT_METHODS, resolve_rule
from sandbox.language.rules import (
    ALLOWED_DUNDER_METHODS,
    BLOCKED_ATTRIBUTES,
    CHAINED_EXCEPTIONS,
    DATA_DUNDERS,
    DESCRIPTIVE_DUNDERS,
    ENUM_API,
    ENUM_INTERNALS,
    FORMAT_METHODS,
    GUARD_MODULES,
    INPLACE_OPERATORS,
    LIBRARY_CLOSED_NAMES,
    NAMEDTUPLE_API,
    TOOL_MODULE_NAME,
    VALUE_METHODS,
    VALUE_TYPES,
    WRITABLE_DUNDERS,
    check_listed,
    class_dict,
    exact_str,
    is_allowed_attribute,
    is_dunder,
    is_tool_class,
    refuse,
)

check_listed(__name__)

_SHARED_KINDS = (
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.BuiltinMethodType,
)
_PLAIN_CONTAINERS = frozenset({dict, list, set, bytearray})


def guarded_getattr(obj: Any, name: str, *default: Any) -> Any:
    """``getattr`` for tool code: public names, else the rule of ``_special_attribute``; safe ``str.format``; never a module."""
    if type(name) is not str:
        refuse("attribute names must be exact strings")
    if name in FORMAT_METHODS and (isinstance(obj, str) or obj is str):
        return _FORMAT.method(obj, name)
    if not is_allowed_attribute(name):
        return _special_attribute(obj, name, default)
    if name == "obj" and isinstance(obj, AttributeError):
        return _failed_lookup_target(obj)
    if name in DICT_STORAGE_METHODS and isinstance(obj, type) and _owner(obj.__mro__, name) is dict:
        return _as_the_mappings_own(getattr(obj, name), name)
    rule = CACHED_RULES.get(type(obj), NOT_LOOKED_UP)
    if rule is not None:
        rule = resolve_rule(obj, rule)
        if rule is not None:
            return _not_a_module(rule.attribute(obj, name, default), name)
    return _not_a_module(getattr(obj, name, *default), name)


DICT_STORAGE_METHODS = frozenset({"get", "setdefault", "pop", "popitem", "values", "items", "update"})
"""``dict``'s methods that read or write a dict's own storage, past what a subclass defines."""


def _as_the_mappings_own(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``dict.get`` and the rest read unbound (``dict.get(d, k)``, ``Counter.values(d)``): on a library's
    dict subclass, that class's own method. ``context.state`` keeps a value it has not read from the
    host as a placeholder in its storage, which the unbound ``dict`` methods handed tool code (and
    an ``update`` there was lost); on a dict, or one of the tool's own classes, they are ``dict``'s."""

    def call(mapping: Any, *args: Any, **kwargs: Any) -> Any:
        kind = type(mapping)
        if isinstance(mapping, dict) and kind is not dict and not is_tool_class(kind):
            return getattr(kind, name)(mapping, *args, **kwargs)
        return method(mapping, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = method.__doc__
    return call


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
        if owner is not None and any(class_dict(owner)[name] is safe for safe in SAFE_FORMAT_METHODS):
            return getattr(obj, name, *default)  # a library's format that walks no attribute (logging's)
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
    frame = None  # the innermost frame of the traceback outside the guards (they raise for the tool)
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_globals.get("__name__") not in GUARD_MODULES:
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


_FORMAT = GuardedFormat(guarded_getattr)
"""``str.format`` and ``format_map`` with their fields read by ``guarded_getattr``."""


def _owner(classes: Iterable[type], name: str) -> type | None:
    """The first class of ``classes`` whose own namespace holds ``name``."""
    for cls in classes:
        if name in class_dict(cls):
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


def checked_keyword(key: object) -> str:
    """A keyword argument name as an exact ``str``, refused when it starts with ``_`` (an internal parameter)."""
    name = exact_str(key, "a keyword argument name")
    if name.startswith("_"):
        refuse(
            f"keyword argument {name!r} is not allowed: names starting with _ reach internal parameters; use public ones"
        )
    return name


def guarded_apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``f(*args, **kwargs)`` from tool code: keyword names, copied to exact ``str``, may not start with ``_``."""
    keywords: dict[str, Any] = {}
    for key, value in kwargs.items():
        name = checked_keyword(key)
        if name in keywords:
            raise TypeError(f"got multiple values for keyword argument {name!r}")
        keywords[name] = value
    return function(*args, **keywords)


def guarded_dir(obj: Any) -> list[str]:
    """``dir(obj)`` without the names tool code may not read (``dir()`` needs an argument)."""
    return [name for name in dir(obj) if is_allowed_attribute(name)]
