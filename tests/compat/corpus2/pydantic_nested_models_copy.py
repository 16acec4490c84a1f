# args: {"order": {"id": "o-1", "customer": {"name": "Ana", "email": "ana@x.io"}, "lines": [{"sku": "A", "qty": 2, "price": 3.5}, {"sku": "B", "qty": 1, "price": 10}], "meta": {"channel": "web"}}}
from typing import Optional

from pydantic import BaseModel, Field


class Customer(BaseModel):
    name: str
    email: str
    vip: bool = False


class Line(BaseModel):
    sku: str
    qty: int = 1
    price: float

    @property
    def total(self) -> float:
        return self.qty * self.price


class Order(BaseModel):
    id: str
    customer: Customer
    lines: list[Line] = Field(default_factory=list)
    meta: dict[str, str] = {}
    note: Optional[str] = None


def pydantic_nested_models_copy(order: dict) -> dict:
    """Nested models, model_copy and model_validate."""
    model = Order.model_validate(order)
    vip = model.model_copy(update={"customer": model.customer.model_copy(update={"vip": True})}, deep=True)
    model.lines.append(Line(sku="C", price=1))
    return {
        "total": sum(line.total for line in model.lines),
        "lines": len(model.lines),
        "vip_lines": len(vip.lines),
        "vip": vip.customer.vip,
        "original_vip": model.customer.vip,
        "fields": list(Order.model_fields),
        "required": [name for name, f in Order.model_fields.items() if f.is_required()],
        "set_fields": sorted(model.model_fields_set),
        "dump": vip.model_dump(exclude={"meta": True, "lines": {0: {"price"}}}),
        "repr": repr(model.customer),
        "eq": Customer(name="a", email="b") == Customer(name="a", email="b"),
    }
