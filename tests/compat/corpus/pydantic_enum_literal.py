# args: {"request": {"size": "L", "color": "red", "quantity": 3}}
from enum import Enum
from typing import Literal
from pydantic import BaseModel


class Size(str, Enum):
    S = "S"
    M = "M"
    L = "L"


class ShirtRequest(BaseModel):
    size: Size
    color: Literal["red", "blue", "black"]
    quantity: int = 1


def pydantic_enum_literal(request: dict) -> dict:
    """Parse a shirt order."""
    parsed = ShirtRequest(**request)
    return {"size": parsed.size.value, "is_large": parsed.size is Size.L, "json": parsed.model_dump_json()}
