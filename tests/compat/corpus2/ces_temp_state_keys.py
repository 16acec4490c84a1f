# context: {"state": {"temp:otp": "4821", "user:name": "Lia", "app:version": "3"}}
def ces_temp_state_keys() -> dict:
    """Use CES-style prefixed state keys."""
    otp = context.state.get("temp:otp")
    context.state["temp:attempts"] = 1
    context.state["user:verified"] = otp == "4821"
    prefixes = sorted({key.split(":", 1)[0] for key in context.state if ":" in key})
    return {"verified": context.state["user:verified"], "prefixes": prefixes}
