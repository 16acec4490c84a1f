# context: {"state": {"item_3": "pen", "item_1": "book", "item_2": "lamp", "user": "bo"}}
def ces_state_iterate_sorted() -> list:
    """List the items stored in the state, in order."""
    items = [
        (int(key.split("_")[1]), value)
        for key, value in context.state.items()
        if key.startswith("item_")
    ]
    for key in list(context.state):
        if key.startswith("item_"):
            del context.state[key]
    context.state["items"] = [value for _, value in sorted(items)]
    return [f"{n}. {value}" for n, value in sorted(items)]
