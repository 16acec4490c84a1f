# args: {"order_id": 17}
import json
from datetime import date, datetime, timezone
from decimal import Decimal
from enum import Enum
from uuid import UUID


class Status(Enum):
    PAID = "paid"


def encode(value):
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, set):
        return sorted(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, UUID):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_default_encoder(order_id: int) -> dict:
    """Serialize an order with types json does not know."""
    order = {
        "id": order_id,
        "total": Decimal("42.10"),
        "placed": datetime(2026, 5, 1, 9, 30, tzinfo=timezone.utc),
        "ship_by": date(2026, 5, 3),
        "tags": {"gift", "express"},
        "status": Status.PAID,
        "ref": UUID(int=order_id),
    }
    text = json.dumps(order, default=encode, sort_keys=True, indent=2)
    try:
        json.dumps({"x": object()}, default=encode)
        failure = None
    except TypeError as error:
        failure = str(error)
    try:
        json.dumps({"x": {1, 2}})
    except TypeError as error:
        plain_failure = str(error)
    return {
        "text": text,
        "failure": failure,
        "plain_failure": plain_failure,
        "separators": json.dumps([1, {"a": None}], separators=(",", ":")),
        "nan": json.dumps(float("nan")),
        "int_keys": json.dumps({1: "a", 2.5: "b", True: "c", None: "d"}),
        "tuple": json.dumps((1, 2)),
        "skip": json.dumps({"a": 1, (1, 2): 3}, skipkeys=True),
    }
