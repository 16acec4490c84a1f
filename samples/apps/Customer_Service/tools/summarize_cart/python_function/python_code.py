def summarize_cart() -> str:
    """Summarizes what is in the customer's shopping cart.

    Returns:
        One line listing the cart's items and quantities.
    """
    res = tools.crm_service_get_cart_information({})
    items = ", ".join(f"{item['quantity']} x {item['sku']}" for item in res["items"])
    return f"Cart {res['cart_id']}: {items or 'empty'}"
