def before_tool_callback(tool: Tool, input: dict, callback_context: CallbackContext) -> dict | None:
    """A refund without a reason is not filed; the model is told to ask for one."""
    if tool.name != "request_refund" or input.get("reason", "").strip():
        return None
    return {"filed": False, "message": "Ask the customer why they want a refund."}
