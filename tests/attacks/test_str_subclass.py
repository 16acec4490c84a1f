"""Every guard takes names only as exact ``str``: a ``str`` subclass cannot lie its way past one.

A subclass can redefine ``startswith``, ``__eq__``, ``__hash__``, ``__str__`` or ``replace`` so that
the name a guard checks is not the name CPython then uses (CPython reads the characters). Each
attack aims at a private name leading to the real builtins; it must be refused or reach nothing.
"""

from __future__ import annotations

import textwrap

import pytest

from sandbox.common.errors import PolicyViolation
from sandbox.language import copy_protocol
from tests.attacks import holds_real_builtins, run_tool

LIARS = """
class Prefixless(str):
    def startswith(self, *args):
        return False
    def __str__(self):
        return self

class Twin(str):
    # equal to, and hashed like, whatever name it is asked about
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __hash__(self):
        return hash(self.target)
    def __str__(self):
        return self

class Shifty(str):
    # one text for the check, another for the use
    def __init__(self, *args):
        self.reads = 0
    def replace(self, *args):
        self.reads += 1
        return 'A B' if self.reads == 1 else '__reduce_ex__ B'

def twin(text, target):
    t = Twin(text)
    t.target = target
    return t
"""

ATTACKS = {
    "keyword-startswith": """
from pydantic import BaseModel
class M(BaseModel):
    x: 'int' = 1
def tool():
    g = {}
    M.model_rebuild(force=True, **{Prefixless('_types_namespace'): g})
    return g.get('__builtins__')
""",
    "keyword-twin": """
from pydantic import BaseModel
class M(BaseModel):
    x: 'int' = 1
def tool():
    g = {}
    M.model_rebuild(force=True, **{twin('namespace', '_types_namespace'): g})
    return g.get('__builtins__')
""",
    "keyword-parent-depth": """
from pydantic import TypeAdapter
def tool():
    return TypeAdapter('int', **{Prefixless('_parent_depth'): 30}).validate_python(1)
""",
    "keyword-model-construct": """
from pydantic import BaseModel
class M(BaseModel):
    x: int = 0
def tool():
    return M.model_construct(**{Prefixless('__class__'): int})
""",
    "getattr-startswith": "def tool():\n    return getattr(ces_requests.request, Prefixless('__globals__'))\n",
    "getattr-twin": "def tool():\n    return getattr(ces_requests.request, twin('x', '__globals__'))\n",
    "getattr-default": "def tool():\n    return getattr(ces_requests.request, Prefixless('__globals__'), None)\n",
    "hasattr-then-getattr": (
        "def tool():\n    n = Prefixless('__globals__')\n"
        "    return hasattr(ces_requests.request, n) and getattr(ces_requests.request, n)\n"
    ),
    "setattr": "class A:\n    pass\ndef tool():\n    setattr(A(), Prefixless('__class__'), int)\n",
    "delattr": "class A:\n    pass\ndef tool():\n    delattr(A, Prefixless('__init__'))\n",
    "attrgetter": (
        "import operator\ndef tool():\n"
        "    return operator.attrgetter(Prefixless('request.__globals__'))(ces_requests)\n"
    ),
    "methodcaller": "import operator\ndef tool():\n    return operator.methodcaller(Prefixless('__reduce_ex__'), 2)(1)\n",
    "format-template": "def tool():\n    return Prefixless('{0.__globals__}').format(ces_requests.request)\n",
    "format-map-key": (
        "def tool():\n    return '{x.__globals__}'.format_map({Prefixless('x'): ces_requests.request})\n"
    ),
    "enum-member-startswith": (
        "import enum\ndef tool():\n    return enum.Enum('E', [(Prefixless('__reduce_ex__'), print)])\n"
    ),
    "enum-member-twin": (
        "import enum\ndef tool():\n    return enum.Enum('E', {twin('A', '__init_subclass__'): print})\n"
    ),
    "enum-names-string": "import enum\ndef tool():\n    return enum.Enum('E', Prefixless('__dict__ B'))\n",
    "enum-names-string-read-twice": "import enum\ndef tool():\n    return enum.Enum('E', Shifty('A B'))\n",
    "pydantic-alias": """
from typing import Any
from pydantic import BaseModel, Field
class M(BaseModel):
    g: Any = Field(default=None, validation_alias=Prefixless('__globals__'))
def tool():
    return M.model_validate(ces_requests.request, from_attributes=True).g
""",
    "pydantic-alias-path": """
from typing import Any
from pydantic import AliasPath, BaseModel, Field
class M(BaseModel):
    g: Any = Field(default=None, validation_alias=AliasPath('request', twin('x', '__globals__')))
def tool():
    return M.model_validate(ces_requests, from_attributes=True).g
""",
    "dataclass-replace": """
import dataclasses
@dataclasses.dataclass
class D:
    x: int = 0
def tool():
    return dataclasses.replace(D(), **{Prefixless('__class__'): int})
""",
    "typing-forward-ref-text": (
        "import typing\ndef tool():\n"
        "    return typing.get_type_hints(type('x', (), {}) if False else None) if False else "
        "typing.List[Prefixless(\"__import__('os')\")]\n"
    ),
}


@pytest.mark.parametrize("source", ATTACKS.values(), ids=ATTACKS.keys())
def test_names_are_exact_strings(source: str) -> None:
    from sandbox.bridges.requests_proxy import make_ces_requests

    injected = {"ces_requests": make_ces_requests(lambda *args: None)}
    try:
        result, _ = run_tool(textwrap.dedent(LIARS + source), injected=injected)
    except (PolicyViolation, TypeError):
        return
    assert not holds_real_builtins(result), result
    reducer = vars(result).get("__reduce_ex__") if isinstance(result, type) else None
    assert reducer is None or isinstance(reducer, copy_protocol.ClassMethodOnly), result  # not the tool's


def test_a_str_subclass_that_tells_the_truth_still_works() -> None:
    source = (
        "import enum\nclass Key(enum.StrEnum):\n    TOTAL = 'total'\n"
        "def f(total=0):\n    return total\n"
        "def tool():\n    return [f(**{Key.TOTAL: 3}), getattr(3, 'real'), '{0}'.format(Key.TOTAL)]\n"
    )
    assert run_tool(source)[0] == [3, 3, "total"]


@pytest.mark.parametrize("key", ["Prefixless('_types_namespace')", "twin('namespace', '_types_namespace')"])
def test_a_private_keyword_behind_a_str_subclass_is_refused(key: str) -> None:
    source = LIARS + (
        "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int = 1\n"
        f"def tool():\n    return M.model_rebuild(force=True, **{{{key}: {{}}}})\n"
    )
    with pytest.raises(
        (PolicyViolation, TypeError), match="_types_namespace|unexpected keyword|multiple values"
    ):
        run_tool(textwrap.dedent(source))
