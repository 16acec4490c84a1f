"""Argument validation against a tool's JSON Schema, before anything runs."""

from __future__ import annotations

import pytest

from runtime.errors import InvalidArguments
from runtime.schema import derive_spec
from runtime.schema.arguments import validate_arguments

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
