# args: {"booking": {"guest": "ana souza", "check_in": "2026-05-01", "check_out": "2026-05-04", "rooms": 2, "promo": null}}
from datetime import date
from typing import Optional

from pydantic import BaseModel, Field, ValidationError, computed_field, field_validator, model_validator


class Booking(BaseModel):
    guest: str = Field(min_length=2, max_length=50)
    check_in: date
    check_out: date
    rooms: int = Field(default=1, gt=0, le=5)
    promo: Optional[str] = None

    @field_validator("guest", mode="before")
    @classmethod
    def title_case(cls, value: str) -> str:
        return value.strip().title()

    @field_validator("promo")
    @classmethod
    def upper_promo(cls, value):
        return value.upper() if value else value

    @model_validator(mode="after")
    def dates_in_order(self) -> "Booking":
        if self.check_out <= self.check_in:
            raise ValueError("check_out must be after check_in")
        return self

    @computed_field
    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days


def pydantic_field_model_validators(booking: dict) -> dict:
    """Field, model validators and a computed field."""
    model = Booking(**booking)
    try:
        Booking(guest="Bo", check_in="2026-05-04", check_out="2026-05-01")
        problem = None
    except ValidationError as error:
        problem = error.errors()[0]["msg"]
    return {
        "dump": model.model_dump(mode="json"),
        "exclude_none": model.model_dump(exclude_none=True, include={"guest", "promo", "nights"}),
        "problem": problem,
        "json": model.model_dump_json(exclude={"promo"}),
    }
