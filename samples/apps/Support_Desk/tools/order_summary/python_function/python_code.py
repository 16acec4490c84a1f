def order_summary(order_ids: list[str]) -> dict:
    """Summarizes several orders.

    Args:
        order_ids: The orders to summarize.

    Returns:
        Each order's status, and how many were found.
    """
    started = [async_tools.lookup_order({"order_id": order_id}) for order_id in order_ids]
    orders = [future().json() for future in started]
    found = [order for order in orders if "error" not in order]
    return {"statuses": {order["order_id"]: order["status"] for order in found}, "found": len(found)}
