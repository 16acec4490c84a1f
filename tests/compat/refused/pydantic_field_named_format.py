# args: {"name": "q3"}
# refused: a class field may not be named "format"
from pydantic import BaseModel


class Export(BaseModel):
    name: str
    format: str = "pdf"


def pydantic_field_named_format(name: str) -> dict:
    """An export request with a field named format."""
    return Export(name=name).model_dump()
