# args: {"payload": {"name": "Ana", "address": {"city": "Porto", "zip": "4000"}, "tags": ["a"]}}
from pydantic import BaseModel, ConfigDict, Field
from pydantic.dataclasses import dataclass


class Address(BaseModel):
    city: str
    zip: str


@dataclass
class Tag:
    label: str
    weight: int = 1


class Customer(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    full_name: str = Field(alias="name")
    address: Address
    tags: list[Tag] = []


def pydantic_dataclass_nested(payload: dict) -> dict:
    """pydantic dataclasses inside a model with aliases."""
    customer = Customer.model_validate({**payload, "tags": [{"label": t} for t in payload["tags"]]})
    return {"dump": customer.model_dump(), "by_alias": customer.model_dump(by_alias=True), "tag": repr(customer.tags[0])}
