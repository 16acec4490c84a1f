# args: {"action": "add", "sku": "mug", "qty": 2}
# context: {"state": {"cart": {"tee": 1}}}
def shopping_cart_state(action: str, sku: str, qty: int = 1) -> dict:
    """Add to or remove from the cart."""
    cart = context.state.get("cart", {})
    if action == "add":
        cart[sku] = cart.get(sku, 0) + qty
    elif action == "remove":
        cart.pop(sku, None)
    context.state["cart"] = cart
    items = sum(cart.values())
    print(f"cart has {items} item{'s' if items != 1 else ''}")
    return {"cart": cart, "items": items}
