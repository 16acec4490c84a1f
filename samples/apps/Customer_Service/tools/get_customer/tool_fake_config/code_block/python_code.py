def fake_tool_call(tool: Tool, input: dict, callback_context: CallbackContext) -> dict | None:
    """Test customers (test-...) get a canned profile; every other id runs the real tool."""
    customer_id = input.get("customer_id", "")
    if not customer_id.startswith("test-"):
        return None
    return {"customer_id": customer_id, "name": "Test Customer", "plan": "Standard", "loyalty_points": 0}
