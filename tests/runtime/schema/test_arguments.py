"""Argument validation against a tool's JSON Schema, before anything runs."""

from __future__ import annotations

import pytest

from runtime._schema import derive_spec
from runtime._schema.arguments import ArgumentValidator, validate_arguments
from sandbox.common.errors import InvalidArguments

SOURCE = '''
from typing import Literal, Optional

def book(city: str, nights: int = 1, unit: Literal["c", "f"] = None, note: Optional[str] = None) -> str:
    """Books a room.

    Args:
        city: Where.
        nights: How many nights.
        unit: Temperature unit.
        note: A note.
    """
    return city
'''

PARAMETERS = derive_spec(SOURCE).parameters


def test_valid_arguments_pass() -> None:
    assert validate_arguments(PARAMETERS, {"city": "Porto", "nights": 2}) == {"city": "Porto", "nights": 2}


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({}, "city"),
        ({"city": "Porto", "nights": "two"}, "nights"),
        ({"city": "Porto", "unit": "k"}, "unit"),
        ({"city": "Porto", "rooms": 2}, "rooms"),
    ],
)
def test_the_error_names_the_bad_parameter(args: dict, named: str) -> None:
    with pytest.raises(InvalidArguments, match=named):
        validate_arguments(PARAMETERS, args)


def test_arguments_must_be_an_object() -> None:
    with pytest.raises(InvalidArguments, match="JSON object"):
        validate_arguments(PARAMETERS, ["Porto"])


def test_strict_mode_nulls_mean_absent() -> None:
    args = {"city": "Porto", "unit": None, "nights": None, "note": None}
    assert validate_arguments(PARAMETERS, args) == {"city": "Porto", "note": None}
    with pytest.raises(InvalidArguments, match="city"):
        validate_arguments(PARAMETERS, {"city": None})


ANNOTATED = '''
import datetime
from enum import Enum
from typing import Any, Literal, Optional
from pydantic import BaseModel, Field

class Color(Enum):
    RED = "red"
    ONE = 1

class Point(BaseModel):
    x: int
    y: float = 0.0

def every(
    i: int,
    f: float,
    s: str,
    b: bool,
    n: None,
    li: list[int],
    ls: list[str],
    lf: list[list[float]],
    d: dict,
    ds: dict[str, int],
    a: Any,
    o: Optional[int],
    u: int | str,
    lit: Literal["a", "b"],
    num: Literal[1, 2],
    mixed: Literal["a", 1, True],
    color: Color,
    point: Point,
    when: datetime.date,
    bounded: int = Field(ge=0, le=9),
    short: str = Field(max_length=3),
    t: tuple[int, str] = (1, "a"),
) -> None:
    """Every kind of parameter."""
'''

TRICKY_VALUES = [
    0,
    1,
    -5,
    10**30,
    True,
    False,
    1.0,
    1.5,
    float("nan"),
    float("inf"),
    "",
    "a",
    "b",
    "red",
    "2024-01-02",
    "not a date",
    "toolong",
    None,
    [],
    [1],
    [1.0],
    [True],
    ["a"],
    [[1.5]],
    [[1]],
    [None],
    (1, "a"),
    [1, "a"],
    {},
    {"a": 1},
    {"x": 1},
    {"x": 1, "y": 2.5},
    {"x": "1"},
    {1: 2},
    type("StrSub", (str,), {})("a"),
    type("IntSub", (int,), {})(1),
    type("ListSub", (list,), {})(["x"]),
    type("DictSub", (dict,), {})(),
    object(),
]


def test_the_quick_check_accepts_nothing_jsonschema_refuses() -> None:
    from runtime._schema.quick_accept import value_check

    validator = ArgumentValidator(derive_spec(ANNOTATED).parameters)
    accepted = 0
    for name, schema in validator.properties.items():
        check = value_check(schema)
        for value in TRICKY_VALUES:
            if check is not None and check(value):
                accepted += 1
                errors = validator.validator.iter_errors({name: value})
                assert [error.message for error in errors if error.validator != "required"] == [], (
                    name,
                    value,
                )
    assert accepted > 40  # the quick check takes most plain values itself


def test_errors_are_jsonschemas_when_the_quick_check_declines() -> None:
    validator = ArgumentValidator(derive_spec(SOURCE).parameters)
    assert validator.certainly_valid is not None
    assert validator.certainly_valid({"city": "Porto", "nights": 2})
    assert not validator.certainly_valid({"city": "Porto", "nights": 2.0})  # jsonschema's call
    assert validator({"city": "Porto", "nights": 2.0}) == {"city": "Porto", "nights": 2.0}
    with pytest.raises(InvalidArguments) as refused:
        validator({"city": 5, "nights": True})
    assert (
        refused.value.message
        == "argument 'city': 5 is not of type 'string'; argument 'nights': True is not of type 'integer'"
    )
