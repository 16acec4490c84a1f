# args: {}
class Cart:
    def __init__(self):
        self.items = []


def err_attribute_error_own_object() -> int:
    """A misspelt attribute of the tool's own object."""
    cart = Cart()
    return cart.itemz
