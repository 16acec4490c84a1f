# refused: "__dataclass_fields__" is not available
from dataclasses import dataclass


@dataclass
class Product:
    name: str
    price: float = 0.0


def dataclass_fields_dunder() -> list:
    """The field names of a dataclass, read from its internals."""
    return sorted(Product.__dataclass_fields__)
