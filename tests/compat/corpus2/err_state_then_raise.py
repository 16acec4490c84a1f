# context: {"state": {"balance": 100}}
# args: {"amount": 150}
def err_state_then_raise(amount: int) -> int:
    """Debit then fail: the session state stays as it was."""
    context.state["balance"] -= amount
    context.state["log"] = [f"debit {amount}"]
    if context.state["balance"] < 0:
        raise RuntimeError("insufficient funds")
    return context.state["balance"]
