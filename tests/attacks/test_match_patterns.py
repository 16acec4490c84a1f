"""Class patterns of ``match`` read attributes by position through the guards.

``case C(a, b)`` makes CPython read ``subject.<C.__match_args__[i]>`` natively. A class body may not
define ``__match_args__``, but the tool's dataclasses and namedtuples get it from their field
names, which may be blocked (``gi_frame``, ``f_back``, ``f_globals``) or private (``_rpc``), and
``isinstance`` can be made true of host objects (``abc.ABC.register``, also through a
namedtuple base under an ``abc.ABC`` subclass). An outside review walked a running
generator's frame up to the worker's module globals and called the real ``eval`` this way.
"""

from __future__ import annotations

import pytest

from attacks import attack, run_tool
from sandbox.bridges.proxies import Context, Tools
from sandbox.common.errors import PolicyViolation

FRAME_WALK = """
import abc
import dataclasses

@dataclasses.dataclass
class G(abc.ABC):
    gi_frame: object = None

@dataclasses.dataclass
class F(abc.ABC):
    f_back: object = None
    f_globals: object = None

def tool():
    def walk():
        match running:
            case G(frame):
                pass
        F.register(type(frame))
        while frame is not None:
            match frame:
                case F(back, namespace):
                    if namespace.get("__name__") != "toolpen_tool":
                        yield namespace["__builtins__"]
                        return
                    frame = back
    running = walk()
    G.register(type(running))
    return next(running)
"""

ATTACKS: dict[str, str] = {
    "dataclass-registered-private": (
        "import abc, dataclasses\n@dataclasses.dataclass\nclass M(abc.ABC):\n    _rpc: object = None\n"
        "def tool():\n    M.register(type(tools))\n    match tools:\n        case M(rpc):\n            return rpc\n"
    ),
    "dataclass-registered-state": (
        "import abc, dataclasses\n@dataclasses.dataclass\nclass M(abc.ABC):\n    _original: object = None\n"
        "def tool():\n    M.register(dict)\n    match context.state:\n        case M(o):\n            return o\n"
    ),
    "dataclass-blocked-own-generator": (
        "import abc, dataclasses\n@dataclasses.dataclass\nclass G(abc.ABC):\n    gi_frame: object = None\n"
        "def tool():\n    g = (x for x in [1])\n    G.register(type(g))\n    match g:\n"
        "        case G(f):\n            return f\n"
    ),
    "namedtuple-base-under-abc": (
        "import abc, collections\nN = collections.namedtuple('N', 'gi_code gi_frame')\n"
        "class M(abc.ABC, N):\n    pass\n"
        "def tool():\n    g = (x for x in [1])\n    M.register(type(g))\n    match g:\n"
        "        case M(code, frame):\n            return frame\n"
    ),
    "typing-namedtuple-nested": (
        "import abc\nfrom typing import NamedTuple\nclass N(NamedTuple):\n    gi_frame: object\n"
        "class M(abc.ABC, N):\n    pass\n"
        "def tool():\n    def g():\n        yield 1\n    gen = g()\n    M.register(type(gen))\n    match [gen]:\n"
        "        case [M(back)]:\n            return back\n"
    ),
}


@pytest.mark.parametrize("source", ATTACKS.values(), ids=ATTACKS.keys())
def test_positional_class_patterns_read_through_the_guards(source: str) -> None:
    context = Context({"state": {"k": 1}})
    tools = Tools(lambda *a: None, context.state)
    try:
        result, _ = run_tool(source, injected={"context": context, "tools": tools})
    except PolicyViolation as error:
        assert "__match_args__" in str(error)
    else:
        assert result is None  # no match (a class pattern that fails matches nothing)
    assert context.state == {"k": 1}


def test_the_frame_walk_to_the_worker_globals_is_refused(rt) -> None:
    result = attack(rt, FRAME_WALK)
    assert not result.success
    assert result.error.kind == "policy", result.error
    assert "gi_frame" in result.error.message and "/" not in result.error.message
    assert attack(rt, "def tool() -> int:\n    return 1\n").output == 1


def test_the_frame_walk_is_refused_in_process() -> None:
    with pytest.raises(PolicyViolation, match="gi_frame"):
        run_tool(FRAME_WALK)


def test_a_temporary_of_the_rewrite_cannot_be_rebound() -> None:
    # the policy evaluates each pattern class into _match_class_N_ before the statement
    source = (
        "import dataclasses\n@dataclasses.dataclass\nclass A:\n    x: int = 0\n"
        "def tool():\n    match (_match_class_0_ := A):\n        case A(x):\n            return x\n"
    )
    with pytest.raises(PolicyViolation, match="reserved"):
        run_tool(source)


def test_ordinary_class_patterns_keep_working() -> None:
    source = """
import dataclasses
from typing import NamedTuple

@dataclasses.dataclass
class Account:
    _balance: int = 0
    owner: str = ""

class Point(NamedTuple):
    x: int
    y: int

def tool():
    seen = []
    for value in [Account(5, "ann"), Point(1, 2), 3, "s", [1, 2], {"k": 1}, Account(1)]:
        match value:
            case Account(balance, "ann"):
                seen.append(("account", balance))
            case Account(owner=owner):
                seen.append(("other", owner))
            case Point(x, y=y):
                seen.append(("point", x, y))
            case int(i) | float(i):
                seen.append(("number", i))
            case str() as text:
                seen.append(("str", text))
            case [first, *rest]:
                seen.append(("list", first, rest))
            case {"k": k}:
                seen.append(("map", k))
    return seen
"""
    assert run_tool(source)[0] == [
        ("account", 5), ("point", 1, 2), ("number", 3), ("str", "s"), ("list", 1, [2]), ("map", 1),
        ("other", ""),
    ]  # fmt: skip
