# args: {"changes": {"theme": "dark", "lang": "pt"}, "remove": "beta"}
# context: {"state": {"theme": "light", "beta": true, "items": [1]}}
def state_update_pop(changes: dict, remove: str) -> dict:
    """Change preferences."""
    context.state.update(changes)
    removed = context.state.pop(remove, None)
    context.state.setdefault("items", []).append(2)
    context.state.setdefault("count", 0)
    return {"removed": removed, "items": context.state.get("items"), "has_beta": remove in context.state}
