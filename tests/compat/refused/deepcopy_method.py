# refused: "__deepcopy__" is a special name
import copy


class Snapshot:
    def __init__(self, items):
        self.items = items

    def __deepcopy__(self, memo):
        return Snapshot(list(self.items))


def deepcopy_method() -> list:
    """An object that deep-copies itself."""
    return copy.deepcopy(Snapshot([1, 2])).items
