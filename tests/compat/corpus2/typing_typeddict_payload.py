# args: {"payload": {"id": 7, "email": "a@b.co", "tags": ["x"]}}
from typing import NotRequired, Required, TypedDict, get_type_hints


class Address(TypedDict, total=False):
    street: str
    city: str


class Customer(TypedDict):
    id: int
    email: str
    tags: list[str]
    nickname: NotRequired[str]
    address: NotRequired[Address]


class Partial(TypedDict, total=False):
    id: Required[int]
    note: str


def typing_typeddict_payload(payload: dict) -> dict:
    """Validate a payload against a TypedDict by hand."""
    hints = get_type_hints(Customer)
    missing = sorted(Customer.__required_keys__ - payload.keys())
    customer: Customer = {"id": payload["id"], "email": payload["email"], "tags": payload["tags"]}
    customer["nickname"] = payload.get("nickname", "n/a")
    return {
        "hints": sorted(hints),
        "required": sorted(Customer.__required_keys__),
        "optional": sorted(Customer.__optional_keys__),
        "partial_required": sorted(Partial.__required_keys__),
        "total": [Customer.__total__, Address.__total__],
        "missing": missing,
        "customer": customer,
        "is_dict": type(customer) is dict,
    }
