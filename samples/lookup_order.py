"""An order lookup of our own: reads the user's orders from the session and formats a status."""

from datetime import date
from typing import Literal, Optional

ORDERS = {
    "A-1001": {"status": "shipped", "carrier": "DHL", "eta": "2026-12-02", "items": ["headphones"]},
    "A-1002": {"status": "processing", "carrier": None, "eta": None, "items": ["keyboard", "mouse"]},
}


def lookup_order(order_id: str, detail: Literal["summary", "full"] = "summary") -> dict:
    """Looks up one of the customer's orders and says where it is.

    Use this when the customer asks about the status, carrier or delivery date of an order.

    Args:
        order_id: The order number as the customer gives it, e.g. "A-1001".
        detail: "summary" for the status line only, "full" to include the items.

    Returns:
        The order's status, carrier and expected delivery, or an error message.
    """
    orders = context.state.get("user:orders", ORDERS)
    order = orders.get(order_id.strip().upper())
    if order is None:
        return {"found": False, "message": f"No order {order_id} on this account."}
    eta: Optional[str] = order.get("eta")
    days_left = (date.fromisoformat(eta) - date.fromisoformat(context.state.get("temp:today", "2026-11-29"))).days if eta else None
    result = {
        "found": True,
        "order_id": order_id.upper(),
        "status": order["status"],
        "carrier": order.get("carrier"),
        "eta": eta,
        "days_left": days_left,
    }
    if detail == "full":
        result["items"] = sorted(order["items"])
    history = context.state.get("orders_looked_up", [])
    context.state["orders_looked_up"] = sorted(set(history) | {order_id.upper()})
    return result
