# args: {"data": {"username": " Ana ", "password": "s3cretpass", "password2": "s3cretpass"}}
from pydantic import BaseModel, root_validator, validator


class Register(BaseModel):
    username: str
    password: str
    password2: str

    @validator("username")
    def strip_username(cls, value):
        return value.strip().lower()

    @root_validator(skip_on_failure=True)
    def passwords_match(cls, values):
        if values.get("password") != values.get("password2"):
            raise ValueError("passwords do not match")
        return values


def pydantic_v1_validators(data: dict) -> dict:
    """Register a user."""
    user = Register(**data)
    return {"username": user.username, "ok": True}
