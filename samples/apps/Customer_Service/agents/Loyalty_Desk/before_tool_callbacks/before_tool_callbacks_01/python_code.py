MAX_POINTS = 500


def before_tool_callback(tool: Tool, input: dict, callback_context: CallbackContext) -> dict | None:
    """Point changes outside 1..500 are not made; the model is told why."""
    if tool.name != "update_customer_loyalty_points":
        return None
    points = input.get("points_to_add", 0)
    if 0 < points <= MAX_POINTS:
        return None
    return {"error": f"points_to_add must be between 1 and {MAX_POINTS}; ask a manager for more."}
