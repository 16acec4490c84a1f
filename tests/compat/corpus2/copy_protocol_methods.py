# args: {"items": ["a", "b"]}
import copy


class Basket:
    def __init__(self, items, owner):
        self.items = list(items)
        self.owner = owner
        self.history = []

    def __copy__(self):
        clone = Basket(self.items, self.owner)
        clone.history = ["copied"]
        return clone



def copy_protocol_methods(items: list[str]) -> dict:
    """Objects that control their own copying."""
    original = Basket(items, {"name": "ana"})
    shallow = copy.copy(original)
    deep = copy.deepcopy(original)
    shallow.items.append("c")
    nested = {"a": [1, [2, 3]], "b": original.items}
    nested_copy = copy.deepcopy(nested)
    nested_copy["a"][1].append(4)
    return {
        "original": original.items,
        "shallow": [shallow.items, shallow.history],
        "deep": [deep.items, deep.history, deep.owner is original.owner],
        "nested": [nested["a"], nested_copy["a"]],
        "replace": copy.copy([1, 2]) == [1, 2],
    }
