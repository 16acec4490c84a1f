"""A before_tool callback: refunds over the limit are not run; the refusal is counted in the state."""

DEFAULT_LIMIT = 100


def before_tool_callback(tool, input, callback_context):
    if tool.name != "issue_refund":
        return None
    limit = callback_context.state.get("app:refund_limit", DEFAULT_LIMIT)
    if input["amount"] <= limit:
        return None
    callback_context.state["refusals"] = callback_context.state.get("refusals", 0) + 1
    return {
        "status": "needs_approval",
        "message": f"Refunds over {limit} EUR need a human's approval; this one was not issued.",
    }
