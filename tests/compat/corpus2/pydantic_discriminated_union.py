# args: {"events": [{"kind": "click", "x": 3, "y": 4}, {"kind": "key", "key": "Enter"}, {"kind": "scroll", "dy": -120}]}
from typing import Annotated, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError


class Click(BaseModel):
    kind: Literal["click"]
    x: int
    y: int


class Key(BaseModel):
    kind: Literal["key"]
    key: str


Event = Annotated[Union[Click, Key], Field(discriminator="kind")]
Events = TypeAdapter(list[Event])


def pydantic_discriminated_union(events: list[dict]) -> dict:
    """Discriminated unions validated through a TypeAdapter."""
    good = Events.validate_python(events[:2])
    try:
        Events.validate_python(events)
        bad = None
    except ValidationError as error:
        bad = [e["type"] for e in error.errors()]
    ints = TypeAdapter(list[int]).validate_python(["1", 2, 3.0])
    return {
        "types": [type(e).__name__ for e in good],
        "bad": bad,
        "ints": ints,
        "json": Events.dump_json(good).decode(),
        "python": Events.dump_python(good),
    }
