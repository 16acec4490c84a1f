ORDERS = {
    "A-1001": {"status": "shipped", "total": "18.50", "email": "ada@example.com"},
    "A-1002": {"status": "delivered", "total": "42.00", "email": "bob@example.com"},
}


def lookup_order(order_id: str) -> dict:
    """Looks an order up by its id.

    Args:
        order_id: The order id, such as A-1001.

    Returns:
        The order's status, total and contact, or an error.
    """
    order = ORDERS.get(order_id.strip().upper())
    if order is None:
        return {"order_id": order_id, "error": "no such order"}
    context.set_variable("last_order_id", order_id.upper())
    return {"order_id": order_id.upper(), **order}
