# args: {"order_id": "Z-9"}
class OrderNotFound(Exception):
    """No such order."""

    def __init__(self, order_id):
        super().__init__(f"order {order_id} not found")
        self.order_id = order_id


ORDERS = {"A-1": "shipped"}


def err_custom_exception_class(order_id: str) -> str:
    """Look up an order that does not exist."""
    if order_id not in ORDERS:
        raise OrderNotFound(order_id)
    return ORDERS[order_id]
