def fake_tool_call(tool: Tool, input: dict, callback_context: CallbackContext) -> dict | None:
    """Test orders (TEST-...) get a canned answer; every other order runs the real tool."""
    if not input.get("order_id", "").upper().startswith("TEST-"):
        return None
    return {"order_id": input["order_id"].upper(), "status": "test", "total": "0.00"}
