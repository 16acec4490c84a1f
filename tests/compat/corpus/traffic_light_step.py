# args: {"event": "timer"}
# context: {"state": {"light": "green"}}
TRANSITIONS = {
    ("green", "timer"): "yellow",
    ("yellow", "timer"): "red",
    ("red", "timer"): "green",
    ("green", "emergency"): "red",
    ("yellow", "emergency"): "red",
}


def traffic_light_step(event: str) -> dict:
    """Advance the traffic light state machine."""
    current = context.state.get("light", "red")
    nxt = TRANSITIONS.get((current, event), current)
    context.state["light"] = nxt
    history = context.state.setdefault("history", [])
    history.append(f"{current}->{nxt}")
    return {"from": current, "to": nxt, "changed": nxt != current}
