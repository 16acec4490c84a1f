# context: {"state": {"cart": {"items": []}}}
def err_key_error_state() -> str:
    """Read a state key that is not there."""
    context.state["touched"] = True
    customer = context.state["customer"]
    return customer["name"]
