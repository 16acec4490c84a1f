# args: {"payload": {"name": "x", "age": "old"}}
from pydantic import BaseModel


class Person(BaseModel):
    name: str
    age: int


def err_pydantic_uncaught(payload: dict) -> dict:
    """Validation errors left to propagate."""
    return Person(**payload).model_dump()
