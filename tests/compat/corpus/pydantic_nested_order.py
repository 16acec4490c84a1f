# args: {"order": {"id": 7, "customer": {"name": "Ana", "email": "ana@example.com"}, "lines": [{"sku": "tee", "qty": 2, "price": "19.99"}, {"sku": "cap", "qty": 1, "price": "12.50"}]}}
from decimal import Decimal
from typing import List
from pydantic import BaseModel, Field, computed_field


class Customer(BaseModel):
    name: str
    email: str


class Line(BaseModel):
    sku: str
    qty: int = Field(gt=0)
    price: Decimal

    @property
    def subtotal(self) -> Decimal:
        return self.qty * self.price


class Order(BaseModel):
    id: int
    customer: Customer
    lines: List[Line]

    @computed_field
    @property
    def total(self) -> Decimal:
        return sum((line.subtotal for line in self.lines), Decimal(0))


def pydantic_nested_order(order: dict) -> dict:
    """Validate an order and total it."""
    parsed = Order.model_validate(order)
    return parsed.model_dump(mode="json")
