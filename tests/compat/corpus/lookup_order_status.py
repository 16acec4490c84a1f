# args: {"order_id": "A-1002"}
ORDERS = {
    "A-1001": {"status": "shipped", "carrier": "UPS", "eta_days": 2},
    "A-1002": {"status": "processing", "carrier": None, "eta_days": None},
}


def _normalize(order_id: str) -> str:
    return order_id.strip().upper()


def lookup_order_status(order_id: str) -> dict:
    """Look up the status of an order.

    Args:
        order_id: The order number, e.g. A-1001.
    """
    key = _normalize(order_id)
    order = ORDERS.get(key)
    if order is None:
        return {"found": False, "order_id": key}
    print(f"order {key} is {order['status']}")
    return {"found": True, "order_id": key, **order}
