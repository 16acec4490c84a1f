"""numpy's array interface closed on every object whose attributes tool code controls.

numpy reads ``__array_interface__`` and ``__array_struct__`` by attribute from any object it is
given (an operand, an index, an argument of any function), outside the guards, and a dict there
names a raw memory address it will read and write: the real builtins, a few steps on. So every
class tool code makes (``classes.check_tool_class``), pydantic's ``BaseModel`` and ``enum.Enum``
(whose instances hold tool values) get a data descriptor answering None, which numpy refuses.
"""

from __future__ import annotations

from typing import Any

from sandbox.language.rules import check_listed, class_dict

check_listed(__name__)


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


def close_array_interface(cls: type) -> None:
    """Make ``cls`` (and its subclasses) answer None for numpy's array interface attributes.

    A ``typing.Protocol`` is left alone: it has no instances, and a member it does not declare
    would change what ``isinstance``/``issubclass`` check (a class deriving from it gets its own).
    """
    if class_dict(cls).get("_is_protocol"):
        return
    for name in ARRAY_INTERFACE_NAMES:
        if not any(isinstance(class_dict(base).get(name), _NoArrayInterface) for base in cls.__mro__):
            type.__setattr__(cls, name, _NO_ARRAY_INTERFACE)
