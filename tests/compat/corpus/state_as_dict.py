# args: {"item": "pear"}
# context: {"state": {"cart": ["apple"], "user": {"name": "Ana"}, "visits": 2}}
import json


def state_as_dict(item: str) -> dict:
    """Add to the cart and describe the state."""
    snapshot = context.state.copy()
    context.state["cart"] = context.state["cart"] + [item]
    context.state["visits"] += 1
    merged = {**context.state, "extra": True}
    return {
        "is_dict": isinstance(context.state, dict),
        "before": snapshot,
        "json": json.dumps(context.state, sort_keys=True),
        "plain": dict(context.state),
        "keys": sorted(merged),
        "len": len(context.state),
    }
