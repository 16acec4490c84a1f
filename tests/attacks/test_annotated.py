"""Annotated metadata: literals and pydantic's Field of literals run; anything else is refused."""

from __future__ import annotations

import pytest

from sandbox.common.errors import PolicyViolation
from tests.attacks import run_tool

ORDINARY = """
from __future__ import annotations
from typing import Annotated
from pydantic import BaseModel, Field

class Req(BaseModel):
    qty: Annotated[int, Field(ge=1, le=9, description="How many")] = 1
    label: Annotated[str, "a label", ("any", "literal")] = "x"

def tool(n: Annotated[int, "how many"] = 2) -> dict:
    return Req(qty=n).model_dump()
"""


def test_annotated_with_field_and_literals_runs() -> None:
    result, _ = run_tool(ORDINARY)
    assert result == {"qty": 2, "label": "x"}


@pytest.mark.parametrize(
    "annotation",
    [
        "Annotated[int, eval('1')]",
        "Annotated[int, Field(default_factory=list)]",
        "Annotated[int, Field(description=str(1))]",
        "Annotated[int, getattr]",
        "Annotated[int, Field(**{'ge': 1})]",
        "Annotated[int]",
    ],
)
def test_other_metadata_is_refused_at_compile_time(annotation: str) -> None:
    source = f"from typing import Annotated\nfrom pydantic import Field\ndef tool(x: {annotation} = 1):\n    return x\n"
    with pytest.raises(PolicyViolation, match="Annotated"):
        run_tool(source)


def test_a_fake_field_is_refused_when_pydantic_evaluates_it() -> None:
    source = (
        "from __future__ import annotations\nfrom typing import Annotated\nfrom pydantic import BaseModel\n"
        "def Field(*args):\n    return 'not pydantic'\n"
        "class M(BaseModel):\n    x: Annotated[int, Field(1)] = 1\n"
        "def tool():\n    return M().model_dump()\n"
    )
    with pytest.raises(PolicyViolation, match="not pydantic's Field"):
        run_tool(source)


@pytest.mark.parametrize(
    "expression",
    ["typing.get_origin(typing.Type[int])", "typing.get_origin(typing.Type[typing.Any])"],
)
def test_typing_introspection_does_not_hand_out_type(expression: str) -> None:
    source = f"import typing\ndef tool():\n    t = {expression}\n    return t('X', (), {{}})\n"
    with pytest.raises(PolicyViolation):
        run_tool(source)


def test_typing_introspection_still_works() -> None:
    source = "import typing\ndef tool():\n    return [typing.get_origin(list[int]) is list, typing.get_args(dict[str, int])]\n"
    result, _ = run_tool(source)
    assert result == [True, (str, int)]
