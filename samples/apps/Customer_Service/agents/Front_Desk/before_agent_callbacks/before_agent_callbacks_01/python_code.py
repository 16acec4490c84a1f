def before_agent_callback(callback_context: CallbackContext) -> Content | None:
    """Greets the customer once per session, without calling the model."""
    if callback_context.get_variable("greeted", "false") == "true":
        return None
    callback_context.set_variable("greeted", "true")
    return Content(role="model", parts=[Part.from_text("Olá! How can I help you today?")])
