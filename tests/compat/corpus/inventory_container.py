# args: {"adds": [["apple", 3], ["pear", 2], ["apple", 1]], "remove": "pear"}
class Inventory:
    def __init__(self):
        self._items = {}

    def __setitem__(self, name, qty):
        self._items[name] = qty

    def __getitem__(self, name):
        return self._items.get(name, 0)

    def __delitem__(self, name):
        del self._items[name]

    def __contains__(self, name):
        return name in self._items

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(sorted(self._items))

    def __eq__(self, other):
        return isinstance(other, Inventory) and self._items == other._items


def inventory_container(adds: list, remove: str) -> dict:
    """Track an inventory."""
    inv = Inventory()
    for name, qty in adds:
        inv[name] += qty
    del inv[remove]
    return {
        "items": {name: inv[name] for name in inv},
        "len": len(inv),
        "has_pear": remove in inv,
        "equal_empty": inv == Inventory(),
    }
