"""Classes in tool code: what ``type`` answers, and what every class tool code makes must be.

A metaclass builds classes with any namespace, past the compile-time policy (``__hash__`` of
classes, special methods a class body may not define), so tool code never holds one: ``type``
in its builtins is ``GuardedType``, which answers ``isinstance``/``issubclass`` as the real one
but whose call is ``guarded_type`` (one argument, never a metaclass nor a pydantic raw-schema
class), and a class statement goes through ``guarded_build_class``. Every class tool code makes
(a class statement, ``Enum``'s functional API) is checked and closed by ``check_tool_class``: no
metaclass and no library class among its bases, numpy's array interface and ``copy``'s special
methods answered from the class (``array_interface``, ``copy_protocol``), and a ``__new__`` that
returns the tool's own objects only.
"""

from __future__ import annotations

import builtins
import types
from typing import Any

from sandbox.language.array_interface import close_array_interface
from sandbox.language.copy_protocol import close_instance_methods
from sandbox.language.library_rules import OWN_CLASS_RULE, TYPE_STAND_INS, rule_for_class
from sandbox.language.rules import check_listed, class_dict, class_name, is_tool_class, refuse

check_listed(__name__)

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
        rule = rule_for_class(base)
        if rule is not None and rule is not OWN_CLASS_RULE and not rule.subclassable:
            refuse(
                f"class {name!r} cannot derive from {class_name(base)}: toolpen offers that library's"
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
    original = class_dict(cls).get("__new__")
    if original is None or getattr(original, "checks_new_results", False):
        return  # none of its own: an inherited one is checked already

    def __new__(kind: type, *args: Any, **kwargs: Any) -> Any:
        getter = getattr(type(original), "__get__", None)
        made = (original if getter is None else getter(original, None, kind))(kind, *args, **kwargs)
        if not (kind in type(made).__mro__ or is_tool_class(type(made)) or type(made) in NEW_RESULTS):
            refuse(
                f"{class_name(kind)}.__new__ returned a {class_name(type(made))}: a class's __new__ returns"
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
