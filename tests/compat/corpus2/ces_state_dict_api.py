# context: {"state": {"a": 1, "b": {"x": [1, 2]}, "temp_token": "t", "obsolete": true, "z": null}}
def ces_state_dict_api() -> dict:
    """Tidy the session state with the usual dict methods."""
    state = context.state
    removed = state.pop("obsolete", None)
    missing = state.pop("never_there", "default")
    del state["temp_token"]
    state.update({"c": 3}, d=4)
    state |= {"e": 5}
    keys = sorted(state)
    copied = dict(state)
    copied["b"]["x"].append(3)
    return {
        "removed": removed,
        "missing": missing,
        "keys": keys,
        "has_z": "z" in state,
        "len": len(state),
        "items": sorted((k, type(v).__name__) for k, v in state.items()),
        "equal": state == copied,
        "get": state.get("nope", [])
    }
