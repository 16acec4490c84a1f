def get_customer(customer_id: str) -> dict:
    """Look up a customer by ID.

    Args:
        customer_id: The customer's ID, such as 123.

    Returns:
        The customer's name, plan and loyalty points, or an error.
    """
    customers = context.state.get("customers", {})
    customer = customers.get(customer_id)
    if customer is None:
        return {"error": f"no customer with ID {customer_id}"}
    return customer
