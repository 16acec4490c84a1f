"""Every tool-supplied iterable the sandbox inspects is read once: what is checked is what is used.

``Enum("E", names)`` used to check ``names`` and then hand it back to ``enum`` to read again; an
iterable, mapping or pair of the tool's could answer with harmless names first and with
``__reduce_ex__`` / ``__init_subclass__`` the second time. The same holds for the namespaces an
annotation is evaluated in and the keyword names of a call.
"""

from __future__ import annotations

import textwrap

import pytest

from sandbox.common.errors import PolicyViolation
from tests.attacks import run_tool

SHIFTING = """
import enum

class Twice:
    # harmless the first time it is read, hostile after
    def __init__(self, first, then):
        self.first, self.then, self.reads = first, then, 0
    def __iter__(self):
        self.reads += 1
        return iter(self.first if self.reads == 1 else self.then)

class ShiftingMapping(dict):
    def __init__(self):
        super().__init__(A=1)
        self.reads = 0
    def __iter__(self):
        self.reads += 1
        return iter(['A'] if self.reads == 1 else ['__init_subclass__'])
    def keys(self):
        return list(iter(self))
    def __getitem__(self, key):
        return classmethod(print) if key != 'A' else 1

class ShiftingPair:
    def __init__(self):
        self.reads = 0
    def __iter__(self):
        self.reads += 1
        return iter(('A', 1) if self.reads == 1 else ('__reduce_ex__', print))
    def __getitem__(self, index):
        return list(iter(self))[index]
"""

ATTACKS = {
    "names-iterable": "def tool():\n    return enum.Enum('E', Twice(['A', 'B'], ['__reduce_ex__', 'B']))\n",
    "pairs-iterable": "def tool():\n    return enum.Enum('E', Twice([('A', 1)], [('__reduce_ex__', print)]))\n",
    "mapping": "def tool():\n    return enum.Enum('E', ShiftingMapping())\n",
    "pair": "def tool():\n    return enum.Enum('E', [ShiftingPair()])\n",
    "int-enum": "def tool():\n    return enum.IntEnum('E', Twice([('A', 1)], [('__index__', 1)]))\n",
    "flag": "def tool():\n    return enum.Flag('E', Twice(['A'], ['__or__']))\n",
}
PRIVATE = ("__reduce_ex__", "__init_subclass__", "__index__", "__or__")


@pytest.mark.parametrize("source", ATTACKS.values(), ids=ATTACKS.keys())
def test_enum_names_are_read_once(source: str) -> None:
    try:
        enum_class, _ = run_tool(textwrap.dedent(SHIFTING + source))
    except PolicyViolation:
        return
    assert all(not name.startswith("_") for name in enum_class.__members__)
    for name in PRIVATE:  # what the hostile second read would have put there
        value = vars(enum_class).get(name)
        assert value is not print and not isinstance(value, classmethod | int), (name, value)


def test_the_ordinary_functional_forms_still_work() -> None:
    source = (
        "import enum\ndef gen():\n    yield 'X'\n    yield 'Y'\n"
        "def tool():\n    E = enum.Enum('E', gen())\n    F = enum.Enum('F', 'A, B C')\n"
        "    G = enum.Enum('G', (('P', 5), ('Q', 6)))\n    H = enum.Enum('H', {'K': 'k'})\n"
        "    return [[m.name for m in E], [m.value for m in F], G.Q.value, H.K.value]\n"
    )
    assert run_tool(source)[0] == [["X", "Y"], [1, 2, 3], 6, "k"]


OTHER_FACTORIES = {
    # each reads the tool's field names once, as exact strings (CPython checks after its own copy)
    "namedtuple": "import collections\ndef tool():\n    return collections.namedtuple('T', Twice(['a'], ['__reduce_ex__']))\n",
    "named-tuple-class": (
        "import typing\ndef tool():\n    return typing.NamedTuple('T', Twice([('a', int)], [('__reduce_ex__', int)]))\n"
    ),
    "typed-dict-from-attributes": (
        "import typing\nfrom pydantic import TypeAdapter\n"
        "class Fields(dict):\n    def keys(self):\n        return ['a']\n"
        "def tool():\n    T = typing.TypedDict('T', Fields(__class__=typing.Any))\n"
        "    return TypeAdapter(T).validate_python(ces_requests, from_attributes=True)\n"
    ),
}


@pytest.mark.parametrize("source", OTHER_FACTORIES.values(), ids=OTHER_FACTORIES.keys())
def test_other_factories_take_the_names_they_checked(source: str) -> None:
    from sandbox.bridges.requests_proxy import make_ces_requests

    try:
        made, _ = run_tool(
            SHIFTING + source, injected={"ces_requests": make_ces_requests(lambda *args: None)}
        )
    except (PolicyViolation, TypeError, ValueError):
        return
    assert not isinstance(made, type) or "__reduce_ex__" not in made._fields, made
    assert not isinstance(made, dict) or "__class__" not in made, made
