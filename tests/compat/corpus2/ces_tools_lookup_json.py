# args: {"order_id": "A-77"}
# tools: {"lookup_order": {"takes": ["order_id"], "answers": {"order_id": "A-77", "status": "shipped", "items": [{"sku": "X1", "qty": 2}, {"sku": "Y9", "qty": 1}]}}}
def ces_tools_lookup_json(order_id: str) -> str:
    """Tell the customer where their order is."""
    response = tools.lookup_order({"order_id": order_id})
    response.raise_for_status()
    order = response.json()
    count = sum(item["qty"] for item in order["items"])
    context.state["last_order"] = order["order_id"]
    return f"Order {order['order_id']} is {order['status']} ({count} items)."
