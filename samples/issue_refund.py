"""A refund tool of our own; the refund_guard callback decides which refunds may run."""


def issue_refund(order_id: str, amount: float, reason: str = "") -> dict:
    """Refunds part or all of an order to the customer's original payment method.

    Args:
        order_id: The order to refund, e.g. "A-1001".
        amount: How much to refund, in euros.
        reason: Why the customer asked for the refund.

    Returns:
        The refund's id and amount.
    """
    refunds = context.state.get("refunds", [])
    refund = {"refund_id": f"RF-{len(refunds) + 1:04d}", "order_id": order_id, "amount": round(amount, 2)}
    context.state["refunds"] = refunds + [refund]
    print(f"refunded {amount:.2f} EUR on {order_id}")
    return {"status": "refunded", **refund}
