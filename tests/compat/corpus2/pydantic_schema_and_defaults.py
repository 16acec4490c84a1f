# args: {"name": "report"}
from enum import Enum
from typing import Literal

from pydantic import BaseModel, Field


class Format(str, Enum):
    PDF = "pdf"
    CSV = "csv"


class Export(BaseModel):
    """An export request."""

    name: str = Field(description="file name without extension", examples=["q3"])
    file_format: Format = Field(default=Format.PDF, serialization_alias="format")
    pages: list[int] = []
    mode: Literal["fast", "full"] = "fast"


def pydantic_schema_and_defaults(name: str) -> dict:
    """JSON schema and defaults of a model."""
    schema = Export.model_json_schema()
    export = Export(name=name)
    return {
        "title": schema["title"],
        "description": schema.get("description"),
        "required": schema["required"],
        "properties": sorted(schema["properties"]),
        "name_field": schema["properties"]["name"],
        "defs": sorted(schema.get("$defs", {})),
        "dump": export.model_dump(mode="json"),
        "enum_value": export.file_format.value,
        "by_alias": export.model_dump(by_alias=True, mode="json"),
        "default_pages_shared": Export(name="a").pages is not Export(name="b").pages,
    }
