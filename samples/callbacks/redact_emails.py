"""An after_tool callback: e-mail addresses never reach the model."""

import re

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")


def redact(value):
    if isinstance(value, str):
        return EMAIL.sub("[email redacted]", value)
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redact(item) for item in value]
    return value


def after_tool_callback(tool, input, callback_context, tool_response):
    redacted = redact(tool_response)
    if redacted == tool_response or not isinstance(redacted, dict):
        return None
    return redacted
