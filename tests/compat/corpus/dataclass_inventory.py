# args: {"sku": "B-2", "delta": -3}
from dataclasses import dataclass, field, asdict


@dataclass
class Item:
    sku: str
    name: str
    stock: int = 0
    tags: list[str] = field(default_factory=list)

    @property
    def low(self) -> bool:
        return self.stock < 5


INVENTORY = [Item("A-1", "apple", 10, ["fruit"]), Item("B-2", "bread", 6), Item("C-3", "cheese", 2)]


def dataclass_inventory(sku: str, delta: int) -> dict:
    """Adjust stock of an item."""
    for item in INVENTORY:
        if item.sku == sku:
            item.stock += delta
            return {"item": asdict(item), "low": item.low, "low_items": [i.sku for i in INVENTORY if i.low]}
    return {"error": f"unknown sku {sku}"}
