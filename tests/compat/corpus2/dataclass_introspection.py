# args: {"payload": {"name": "Widget", "price": "3.5", "stock": "12", "active": "yes"}}
from dataclasses import MISSING, dataclass, fields, is_dataclass


@dataclass
class Product:
    name: str
    price: float
    stock: int = 0
    active: bool = True


def coerce(kind, value):
    if kind is bool:
        return str(value).lower() in ("1", "true", "yes")
    return kind(value)


def dataclass_introspection(payload: dict) -> dict:
    """Build a dataclass from loosely typed input by reading its fields."""
    kwargs = {f.name: coerce(f.type, payload[f.name]) for f in fields(Product) if f.name in payload}
    product = Product(**kwargs)
    return {
        "product": repr(product),
        "is_dataclass": [is_dataclass(Product), is_dataclass(product), is_dataclass(dict)],
        "required": [f.name for f in fields(Product) if f.default is MISSING],
        "types": {f.name: f.type.__name__ for f in fields(Product)},
    }
