"""The function tool defined in the agent-sessions guide (seed 000), implemented in Python."""

# Customers known when the session state has none; the session state wins when present.
DEFAULT_CUSTOMERS = {
    "123": {"customer_id": "123", "name": "Ana Souza", "plan": "Gold", "loyalty_points": 1200},
}


def get_customer(customer_id: str) -> dict:
    """Look up a customer by ID."""
    customers = context.state.get("customers", DEFAULT_CUSTOMERS)
    customer = customers.get(customer_id)
    if customer is None:
        return {"error": f"no customer with ID {customer_id}"}
    return customer
