# context: {"state": {"counter": 41, "temp:scratch": "x"}}
def session_counter() -> int:
    """Increment a counter kept in the session."""
    context.state["counter"] = context.state.get("counter", 0) + 1
    del context.state["temp:scratch"]
    return context.state["counter"]
