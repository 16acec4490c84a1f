def before_agent_callback(callback_context: CallbackContext) -> Content | None:
    """Greets at session start without calling the model."""
    for part in callback_context.get_last_user_input():
        if part.text and part.text.startswith("<event>session start"):
            callback_context.set_variable("greeted", "true")
            return Content(role="model", parts=[Part.from_text("Hello! How can I help with your order?")])
    return None
