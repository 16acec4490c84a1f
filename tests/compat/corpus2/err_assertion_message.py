# args: {"quantity": 0}
def err_assertion_message(quantity: int) -> int:
    """An assert with a message."""
    assert quantity > 0, f"quantity must be > 0 (got {quantity})"
    return quantity
