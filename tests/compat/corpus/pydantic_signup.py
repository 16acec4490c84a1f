# args: {"payload": {"email": "  Ana@Example.com ", "age": "34", "plan": "pro"}}
from typing import Literal, Optional
from pydantic import BaseModel, Field, ValidationError, field_validator


class Signup(BaseModel):
    email: str
    age: int = Field(ge=13, le=120)
    plan: Literal["free", "pro", "team"] = "free"
    referrer: Optional[str] = None

    @field_validator("email")
    @classmethod
    def normalize_email(cls, value: str) -> str:
        value = value.strip().lower()
        if "@" not in value:
            raise ValueError("not an email")
        return value


def pydantic_signup(payload: dict) -> dict:
    """Validate a signup form."""
    try:
        signup = Signup(**payload)
    except ValidationError as error:
        return {"ok": False, "errors": [e["loc"][0] for e in error.errors()]}
    return {"ok": True, "signup": signup.model_dump()}
