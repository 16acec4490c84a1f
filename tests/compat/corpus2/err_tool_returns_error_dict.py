# args: {"customer_id": "999"}
# tools: {"crm_lookup": {"takes": ["customer_id"], "answers": {"error": "not found", "code": 404}}}
def err_tool_returns_error_dict(customer_id: str) -> dict:
    """A nested tool answers an error payload; the tool raises on it."""
    result = tools.crm_lookup({"customer_id": customer_id}).json()
    if "error" in result:
        raise LookupError(f"CRM: {result['error']} ({result['code']})")
    return result
