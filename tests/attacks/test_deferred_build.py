"""No check depends on a tool frame being on the stack: builds the worker runs itself are checked too.

A model with ``defer_build=True`` or an unresolved forward reference gets its validator when it is
first used. If that first use is the worker serializing the tool's result (``model_dump``), no tool
frame is on the stack; a check that looked for one skipped the alias below, and the tool's own
``model_serializer``, running right after, used the unchecked validator to read
``ces_requests.request.__globals__``. Through the real runtime, each spelling must end in a
structured error, never with the real ``__import__`` in the output.
"""

from __future__ import annotations

import textwrap

import pytest

from runtime import Runtime

READER = """
from typing import Any
from pydantic import AliasPath, BaseModel, ConfigDict, Field, model_serializer

class Reader(BaseModel):
    model_config = ConfigDict({config}from_attributes=True)
    g: Any = Field(default=None, validation_alias=AliasPath("request", "__globals__"))
    {extra}

class Carrier(BaseModel):
    n: int = 0

    @model_serializer
    def dump(self) -> dict:
        g = Reader.model_validate(ces_requests).g
        return {{"import": repr(g["__builtins__"]["__import__"])}}

class Later(BaseModel):
    n: int = 0
"""

SPELLINGS = {
    "defer-build-list": ("defer_build=True, ", "", "[Reader.model_construct(), Carrier()]"),
    "defer-build-dict": ("defer_build=True, ", "", "{'a': Reader.model_construct(), 'b': Carrier()}"),
    "unresolved-forward-reference": (
        "",
        "later: 'Later | None' = None",
        "[Reader.model_construct(), Carrier()]",
    ),
    "forward-reference-and-defer": (
        "defer_build=True, ",
        "later: 'Later | None' = None",
        "({'r': Reader.model_construct()}, [Carrier()])",
    ),
}


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=SPELLINGS.keys())
def test_a_validator_the_worker_builds_is_checked(rt: Runtime, spelling: tuple[str, str, str]) -> None:
    config, extra, returned = spelling
    source = (
        READER.format(config=config, extra=extra) + f"\n\ndef deferred() -> Any:\n    return {returned}\n"
    )
    rt.add_tool(textwrap.dedent(source), replace=True)
    result = rt.call("deferred", {})
    assert not result.success, result.output
    assert "built-in function" not in str(result.output) + result.error.message
    assert result.error.kind in ("policy", "tool_error"), result.error
    assert "__globals__" in result.error.message


def test_a_forward_reference_the_worker_resolves_must_name_a_type(rt: Runtime) -> None:
    source = """
        from typing import Any
        from pydantic import BaseModel

        class Box(BaseModel):
            item: "Later | None" = None

        def late_name() -> Any:
            global Later
            Later = ces_requests
            return Box.model_construct()
        """
    rt.add_tool(textwrap.dedent(source))
    result = rt.call("late_name", {})
    assert not result.success
    assert "does not name a type" in result.error.message


def test_a_deferred_model_still_serializes(rt: Runtime) -> None:
    source = """
        from pydantic import BaseModel, ConfigDict

        class Lazy(BaseModel):
            model_config = ConfigDict(defer_build=True)
            name: str
            next: "Lazy | None" = None

        def lazy() -> Lazy:
            return Lazy.model_construct(name="a", next=Lazy.model_construct(name="b"))
        """
    rt.add_tool(textwrap.dedent(source))
    result = rt.call("lazy", {})
    assert result.success, result.error
    assert result.output == {"name": "a", "next": {"name": "b", "next": None}}
