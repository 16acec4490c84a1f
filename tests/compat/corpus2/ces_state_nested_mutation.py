# args: {"sku": "TEA-3", "qty": 2}
# context: {"state": {"cart": {"items": [{"sku": "MUG-1", "qty": 1}], "currency": "USD"}, "history": []}}
def ces_state_nested_mutation(sku: str, qty: int) -> dict:
    """Add an item to the cart kept in the session state (edited in place)."""
    cart = context.state["cart"]
    for item in cart["items"]:
        if item["sku"] == sku:
            item["qty"] += qty
            break
    else:
        cart["items"].append({"sku": sku, "qty": qty})
    context.state["history"].append(f"add {sku} x{qty}")
    context.state.setdefault("created_by", "cart_tool")
    return {"lines": len(cart["items"]), "units": sum(i["qty"] for i in cart["items"])}
