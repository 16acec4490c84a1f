# args: {"raw": "{\"sku\": \"\", \"qty\": \"three\", \"price\": -1, \"extra_field\": 1}"}
from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    sku: str = Field(min_length=1)
    qty: int
    price: float = Field(ge=0)


def pydantic_validate_json_errors(raw: str) -> dict:
    """Validate raw JSON and report every error like an API would."""
    try:
        Item.model_validate_json(raw)
    except ValidationError as error:
        return {
            "count": error.error_count(),
            "errors": [
                {"loc": ".".join(map(str, e["loc"])), "type": e["type"], "msg": e["msg"], "input": e["input"]}
                for e in error.errors(include_url=False)
            ],
            "title": error.title,
        }
    return {"count": 0}
