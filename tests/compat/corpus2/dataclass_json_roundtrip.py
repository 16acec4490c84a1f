# args: {"payload": "{\"id\": 3, \"lines\": [{\"sku\": \"A\", \"qty\": 2}], \"status\": \"open\"}"}
import json
from dataclasses import asdict, dataclass, field
from enum import Enum


class Status(str, Enum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass
class Line:
    sku: str
    qty: int = 1


@dataclass
class Order:
    id: int
    lines: list[Line] = field(default_factory=list)
    status: Status = Status.OPEN

    @classmethod
    def from_json(cls, text: str) -> "Order":
        data = json.loads(text)
        return cls(id=data["id"], lines=[Line(**line) for line in data["lines"]], status=Status(data["status"]))

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


def dataclass_json_roundtrip(payload: str) -> dict:
    """Dataclasses to and from JSON, with a str Enum field."""
    order = Order.from_json(payload)
    order.lines.append(Line("B"))
    text = order.to_json()
    return {"json": text, "again": Order.from_json(text) == order, "status": order.status, "qty": sum(l.qty for l in order.lines)}
