"""Helpers that change the class or function they are given work on the tool's own ones only.

``dataclasses.dataclass(type(tools))`` rewrote the host's ``Tools`` class (an ``__init__``, an
``__eq__``, fields for its private slots), after which ``dataclasses.asdict(tools)`` read the
private ``_rpc`` and ``_state``; ``total_ordering``, ``runtime_checkable``, ``final`` and kin write
attributes onto whatever they get. Each must refuse a host class and leave it unchanged.
"""

from __future__ import annotations

import textwrap

import pytest

from sandbox.bridges.proxies import Context, State, Tools
from sandbox.common.errors import PolicyViolation
from tests.attacks import holds_real_builtins, run_tool

ATTACKS = {
    "dataclass-tools": "import dataclasses\ndef tool():\n    dataclasses.dataclass(type(tools))\n    return dataclasses.asdict(tools)\n",
    "dataclass-options": "import dataclasses\ndef tool():\n    return dataclasses.dataclass(eq=False)(type(context))\n",
    "dataclass-frozen-state": "import dataclasses\ndef tool():\n    return dataclasses.dataclass(frozen=True)(type(context.state))\n",
    "total-ordering": (
        "import functools\ndef tool():\n    return functools.total_ordering(type(context.state))\n"
    ),
    "enum-unique-host": "import enum\ndef tool():\n    return enum.unique(enum.Enum)\n",
    "runtime-checkable-host": "import typing\ndef tool():\n    return typing.runtime_checkable(typing.SupportsInt)\n",
    "final-host-class": "import typing\ndef tool():\n    return typing.final(type(context))\n",
    "final-host-function": "import typing, json\ndef tool():\n    return typing.final(json.dumps)\n",
    "no-type-check-host": "import typing\ndef tool():\n    return typing.no_type_check(type(tools))\n",
    "dataclass-transform-host": "import typing\ndef tool():\n    return typing.dataclass_transform()(type(tools))\n",
    "replace-host-dataclass": (
        "import dataclasses\nfrom pydantic import AliasPath\ndef tool():\n"
        "    return dataclasses.replace(AliasPath('a'), path=['__globals__'])\n"
    ),
}


@pytest.mark.parametrize("source", ATTACKS.values(), ids=ATTACKS.keys())
def test_host_classes_are_refused_and_unchanged(source: str) -> None:
    state = State({})
    injected = {"context": Context({}), "tools": Tools(lambda *args: None, state)}
    before = {cls: dict(vars(cls)) for cls in (Context, State, Tools)}
    with pytest.raises(PolicyViolation, match="the tool defines"):
        result, _ = run_tool(source, injected=injected)
        assert not holds_real_builtins(result)
    assert {cls: dict(vars(cls)) for cls in (Context, State, Tools)} == before


ORDINARY = """
import dataclasses, enum, functools, typing

@functools.total_ordering
@dataclasses.dataclass(frozen=True)
class Version:
    major: int
    minor: int = 0
    def __lt__(self, other):
        return (self.major, self.minor) < (other.major, other.minor)

@enum.unique
class Color(enum.Enum):
    RED = 1
    BLUE = 2

@typing.runtime_checkable
class Named(typing.Protocol):
    name: str

@typing.final
class Leaf:
    name = 'leaf'

    @typing.final
    def size(self):
        return 1

@dataclasses.dataclass
class Point:
    x: int
    y: int = 0

def tool():
    v = Version(1, 2)
    return [v > Version(1), dataclasses.replace(Point(1), y=5), isinstance(Leaf(), Named),
            Color.BLUE.value, Leaf().size(), dataclasses.asdict(v)]
"""


def test_the_tool_s_own_classes_keep_every_helper() -> None:
    result, _ = run_tool(textwrap.dedent(ORDINARY))
    assert result[0] is True and result[1].y == 5 and result[2:] == [True, 2, 1, {"major": 1, "minor": 2}]
