"""The copy protocol held to the guards' rules: ``copy``, ``deepcopy`` and what they read by name.

``copy.copy`` and ``copy.deepcopy`` (and ``dataclasses.asdict``/``replace``, pydantic's deep
copies) read special methods off an instance by name, outside the guards, and rebuild the copy
from what those return: any callable, its arguments, then writes into whatever it made. So the
names ``copy`` reads are answered from the class only (``ClassMethodOnly``, put on every tool
class by ``close_instance_methods``), a rebuilt copy must be of its original's class
(``close_copy_reconstruct``), ``functools.update_wrapper`` never copies those names onto a
wrapper that cannot hold the descriptors (``close_copied_specials``), and the ``deepcopy`` tool
code gets keeps its memo, which fills with copies of host internals, to itself (``guarded_deepcopy``).
The two patches of the standard library are installed once per process (``namespace.install_process_hooks``).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

from sandbox.language.arming import checks_apply
from sandbox.language.array_interface import ARRAY_INTERFACE_NAMES
from sandbox.language.rules import check_listed, class_dict, class_name, refuse

check_listed(__name__)


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
            value = class_dict(base).get(self._name)
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
    if class_dict(cls).get("_is_protocol"):
        return
    for name in CLASS_ONLY_NAMES:
        own = class_dict(cls).get(name)
        if not isinstance(own, ClassMethodOnly):
            type.__setattr__(cls, name, ClassMethodOnly(name, own))


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
                    f"copy: rebuilding a {class_name(type(x))} gave a {class_name(type(result))};"
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
