# context: {"state": {"visits": 4}}
def ces_state_visit_counter() -> str:
    """Count the visits of this session."""
    context.state["visits"] = context.state.get("visits", 0) + 1
    context.state["first_visit"] = context.state.get("first_visit", context.state["visits"] == 1)
    context.state["visits"] += 10
    context.state["visits"] -= 10
    return f"visit #{context.state['visits']}"
