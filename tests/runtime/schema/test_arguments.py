"""Argument validation against a tool's JSON Schema, before anything runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from runtime import Runtime
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


NESTED = '''
from dataclasses import dataclass
from pydantic import BaseModel

@dataclass
class Line:
    sku: str
    qty: int = 1

class Order(BaseModel):
    lines: list[Line]
    note: str = "none"
    by_key: dict[str, Line] = {}

def place(order: Order, pair: tuple[Line, int] = (Line("z"), 0), rush: bool = False) -> dict:
    """Places an order."""
    return {"qty": [line.qty for line in order.lines], "note": order.note, "rush": rush,
            "by_key": {key: line.qty for key, line in order.by_key.items()}, "pair": pair[0].qty}
'''


def nulled_optionals(strict: dict[str, Any], derived: dict[str, Any]) -> set[str]:
    """Where strict mode made an optional field nullable that the derived schema refuses null for."""
    strict_defs, derived_defs = strict.get("$defs", {}), derived.get("$defs", {})

    def resolved(node: Any, defs: dict[str, Any]) -> Any:
        return defs[node["$ref"].rsplit("/", 1)[-1]] if isinstance(node, dict) and "$ref" in node else node

    def walk(mine: Any, own: Any, path: str) -> Iterator[str]:
        mine, own = resolved(mine, strict_defs), resolved(own, derived_defs)
        if not isinstance(mine, dict) or not isinstance(own, dict):
            return
        optional = set(own.get("properties", {})) - set(own.get("required", ()))
        for name, sub in mine.get("properties", {}).items():
            theirs = own["properties"][name]
            if name in optional and "null" in json.dumps(sub) and "null" not in json.dumps(theirs):
                yield f"{path}.{name}".lstrip(".")
            yield from walk(sub, theirs, f"{path}.{name}")
        for key in ("items", "additionalProperties"):
            yield from walk(mine.get(key), own.get(key), f"{path}[]")
        for index, pair in enumerate(
            zip(mine.get("prefixItems", ()), own.get("prefixItems", ()), strict=True)
        ):
            yield from walk(*pair, f"{path}[{index}]")

    return set(walk(strict, derived, ""))


def test_strict_mode_nulls_take_the_default_at_every_depth(rt: Runtime) -> None:
    tool = rt.add_tool(NESTED)
    strict = tool.schema("responses", strict=True)["parameters"]
    derived = tool.spec.parameters
    # every optional field strict mode made nullable, at each depth, is one the call below nulls
    # (a dict's values have no strict schema: nulled there too, as a non-strict model may)
    assert nulled_optionals(strict, derived) == {
        "pair",
        "rush",
        "order.note",
        "order.by_key",
        "order.lines[].qty",
        "pair[0].qty",
    }
    line = {"sku": "a", "qty": None}
    args = {"order": {"lines": [line], "note": None, "by_key": {"k": line}}, "pair": [line, 3], "rush": None}
    result = rt.call("place", args)
    assert result.success, result.error
    assert result.output == {"qty": [1], "note": "none", "rush": False, "by_key": {"k": 1}, "pair": 1}
    # a null for a required field is still refused, at any depth
    refused = rt.call("place", {"order": {"lines": [{"sku": None}]}})
    assert refused.error is not None and "order.lines.0.sku" in refused.error.message


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
