# args: {"payload": {"email": "  Ana@Example.com ", "age": "41", "tags": "a, b ,c", "website": "https://example.com/x"}}
from typing import Annotated

from pydantic import AfterValidator, BaseModel, BeforeValidator, Field, ValidationError


def split_csv(value):
    return [part.strip() for part in value.split(",")] if isinstance(value, str) else value


def lower(value: str) -> str:
    return value.strip().lower()


Email = Annotated[str, AfterValidator(lower), Field(pattern=r"^[^@\s]+@[^@\s]+$")]
Tags = Annotated[list[str], BeforeValidator(split_csv)]


class Signup(BaseModel):
    email: Email
    age: Annotated[int, Field(ge=18, le=120)]
    tags: Tags = []
    website: str | None = None


def pydantic_annotated_validators(payload: dict) -> dict:
    """Pydantic v2 Annotated validators."""
    user = Signup(**payload)
    try:
        Signup(email="x", age=12)
        errors = []
    except ValidationError as error:
        errors = [(e["loc"][0], e["type"]) for e in error.errors()]
    return {"user": user.model_dump(), "errors": errors}
