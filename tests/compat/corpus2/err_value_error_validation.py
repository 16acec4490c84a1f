# args: {"amount": -5}
def check(amount):
    if amount <= 0:
        raise ValueError(f"amount must be positive, got {amount}")
    return amount


def err_value_error_validation(amount: int) -> dict:
    """Refund an amount (raises on a bad one)."""
    print(f"refunding {amount}")
    return {"refunded": check(amount)}
