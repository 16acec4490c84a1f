import re

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")


def after_tool_callback(tool: Tool, input: dict, callback_context: CallbackContext, tool_response: dict) -> dict | None:
    """E-mail addresses in a tool's result never reach the model."""
    if not isinstance(tool_response, dict):
        return None
    redacted = {key: EMAIL.sub("[email]", value) if isinstance(value, str) else value for key, value in tool_response.items()}
    return None if redacted == tool_response else redacted
