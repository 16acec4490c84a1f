"""Annotation strings are evaluated under the guards, in namespaces the sandbox builds.

``typing.get_type_hints``, ``typing._eval_type``, ``ForwardRef._evaluate`` and pydantic all end in
``eval(code, globalns, localns)``, and ``eval`` puts the real builtins into a ``globalns`` that has
none. Each attack below hands its own namespace to one of them and then looks in it for
``__builtins__``; it must be refused, or end with nothing of the real builtins in hand.
"""

from __future__ import annotations

import textwrap

import pytest

from sandbox.common.errors import PolicyViolation
from tests.attacks import holds_real_builtins, run_tool

CLASS_A = "import typing\nclass A:\n    x: 'int'\n"

ATTACKS = {
    "get-type-hints-globalns": CLASS_A
    + """
def tool():
    g = {}
    typing.get_type_hints(A, globalns=g)
    return g.get('__builtins__')
""",
    "get-type-hints-positional": CLASS_A
    + """
def tool():
    g, l = {}, {}
    typing.get_type_hints(A, g, l)
    return [g.get('__builtins__'), l.get('__builtins__')]
""",
    "get-type-hints-localns-only": CLASS_A
    + """
def tool():
    l = {}
    typing.get_type_hints(A, None, l)
    return l.get('__builtins__')
""",
    "get-type-hints-function": """
import typing
def f(x: 'int') -> 'str':
    return ''
def tool():
    g = {}
    typing.get_type_hints(f, globalns=g)
    return g.get('__builtins__')
""",
    "get-type-hints-names-a-real-builtin": CLASS_A
    + """
class B:
    y: 'open'
def tool():
    return typing.get_type_hints(B, globalns={})
""",
    "get-type-hints-dict-subclass-namespace": CLASS_A
    + """
class Liar(dict):
    def __init__(self):
        self.calls = 0
    def __contains__(self, key):
        return True
    def __getitem__(self, key):
        self.calls += 1
        return int if self.calls == 1 else getattr
def tool():
    return typing.get_type_hints(A, globalns=Liar())
""",
    "forward-ref-evaluate-by-getattr": """
import typing
def tool():
    ref = typing.get_args(typing.List['int'])[0]
    g = {}
    getattr(ref, '_evaluate')(g, g, frozenset())
    return g.get('__builtins__')
""",
    "typing-eval-type-by-getattr": """
import typing
def tool():
    g = {}
    getattr(typing, '_eval_type')(typing.List['int'], g, g)
    return g.get('__builtins__')
""",
    "typed-dict-hints": """
import typing
class T(typing.TypedDict):
    x: 'int'
def tool():
    g = {}
    typing.get_type_hints(T, globalns=g)
    return g.get('__builtins__')
""",
    "named-tuple-hints": """
import typing
class T(typing.NamedTuple):
    x: 'int'
def tool():
    g = {}
    typing.get_type_hints(T, globalns=g)
    return g.get('__builtins__')
""",
    "dataclass-string-annotation-hints": """
import dataclasses, typing
@dataclasses.dataclass
class D:
    x: 'int' = 1
def tool():
    g = {}
    typing.get_type_hints(D, globalns=g)
    return [g.get('__builtins__'), D()]
""",
    "annotated-string-include-extras": """
import typing
from typing import Annotated
class A:
    x: "Annotated['int', 'meta']"
def tool():
    g = {'Annotated': Annotated}
    typing.get_type_hints(A, globalns=g, include_extras=True)
    return g.get('__builtins__')
""",
    "pydantic-types-namespace-keyword": """
from pydantic import BaseModel
class M(BaseModel):
    x: 'int' = 1
def tool():
    g = {}
    M.model_rebuild(force=True, **{'_types_namespace': g})
    return g.get('__builtins__')
""",
    "pydantic-parent-depth-keyword": """
from pydantic import TypeAdapter
def tool():
    return TypeAdapter('int', **{'_parent_depth': 9})
""",
    "type-adapter-module": """
from pydantic import TypeAdapter
def tool():
    return TypeAdapter('str', module='os').validate_python('x')
""",
    "type-adapter-string-annotation": """
from typing import Annotated
from pydantic import TypeAdapter
def tool():
    return TypeAdapter(Annotated['int', 'x']).validate_python('3')
""",
}


@pytest.mark.parametrize("source", ATTACKS.values(), ids=ATTACKS.keys())
def test_no_namespace_of_tool_code_reaches_eval(source: str) -> None:
    try:
        result, _ = run_tool(textwrap.dedent(source))
    except (PolicyViolation, NameError, TypeError):
        return
    assert not holds_real_builtins(result), result


def test_a_lying_namespace_is_read_once_and_never_yields_a_non_type() -> None:
    result, _ = run_tool(ATTACKS["get-type-hints-dict-subclass-namespace"])
    assert result == {"x": int}


def test_the_namespace_a_tool_passes_is_left_as_it_was() -> None:
    source = (
        CLASS_A
        + "def tool():\n    g = {'int': int}\n    typing.get_type_hints(A, globalns=g)\n    return g\n"
    )
    result, _ = run_tool(source)
    assert result == {"int": int}


ORDINARY = """
from __future__ import annotations
import typing
from typing import Annotated, Optional
from pydantic import BaseModel, Field, TypeAdapter

class Node(BaseModel):
    name: str
    children: list[Node] = []
    size: Annotated[int, Field(ge=0)] = 0

class Later(BaseModel):
    item: Optional[Item] = None

class Item(BaseModel):
    label: str

class Plain:
    a: int
    b: 'list[Item]'

def tool() -> list:
    Later.model_rebuild()
    tree = Node(name='root', children=[Node(name='leaf', size=2)])
    hints = typing.get_type_hints(Plain)
    local = typing.get_type_hints(Plain, globalns={'Item': Item, 'list': list, 'int': int})
    return [tree.model_dump(), Later(item={'label': 'x'}).model_dump(), hints == local,
            str(hints['b']), TypeAdapter(list['Item']).validate_python([{'label': 'y'}])[0].label]
"""


def test_ordinary_forward_references_still_resolve() -> None:
    result, _ = run_tool(ORDINARY)
    assert result == [
        {"name": "root", "children": [{"name": "leaf", "children": [], "size": 2}], "size": 0},
        {"item": {"label": "x"}},
        True,
        "list[toolpen_tool.Item]",
        "y",
    ]


def test_the_ces_classes_name_types_in_string_annotations() -> None:
    from sandbox.bridges.ces_types import Part

    source = (
        "from __future__ import annotations\nfrom pydantic import BaseModel\n"
        "class Note(BaseModel):\n    part: Part | None = None\n"
        "def tool():\n    return Note(part=Part(text='hi')).part.text\n"
    )
    assert run_tool(source, injected={"Part": Part})[0] == "hi"


GENERIC_SUBSCRIPT = """
import typing

T = typing.TypeVar("T")


class Box(typing.Generic[T]):
    pass


class Item:
    name: str


def tool():
    def f(box: "Box[Item]") -> None: ...

    return typing.get_args(typing.get_type_hints(f)["box"])
"""


def test_a_generic_subscript_in_an_annotation_hands_out_no_import() -> None:
    """3.12's ``Generic.__class_getitem__`` (C) imports ``typing`` through the eval's builtins:
    they hold only an ``__import__`` of ``typing``, which no annotation can name (no underscore
    name passes the string check), and the evaluation hands back the type, nothing else."""
    arguments, _ = run_tool(GENERIC_SUBSCRIPT)
    assert [argument.__name__ for argument in arguments] == ["Item"]
    assert not holds_real_builtins(arguments)
