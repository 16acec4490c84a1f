from decimal import Decimal

REFUND_LIMITS = {"standard": Decimal("25"), "gold": Decimal("100")}


def request_refund(order_id: str, reason: str) -> dict:
    """Files a refund request for an order.

    Args:
        order_id: The order to refund.
        reason: Why the customer wants a refund.

    Returns:
        Whether the request was filed.
    """
    res = tools.lookup_order({"order_id": order_id})
    res.raise_for_status()
    order = res.json()
    if "error" in order:
        return {"filed": False, "message": order["error"]}
    tier = get_variable("customer_tier", "standard")
    if Decimal(order["total"]) > REFUND_LIMITS.get(tier, Decimal("0")):
        set_variable("refund_status", "refused")
        return {"filed": False, "message": f"Orders over {REFUND_LIMITS[tier]} EUR need a manager."}
    set_variable("refund_status", "requested")
    print(f"refund requested for {order['order_id']}: {reason}")
    return {"filed": True, "order_id": order["order_id"], "amount": order["total"]}
