HANDOVER_WORDS = ("human", "person", "manager")


def before_model_callback(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
    """Hands over to a human when the customer asks for one; the model is not called."""
    latest = llm_request.contents[-1] if llm_request.contents else None
    if latest is None or not latest.is_user():
        return None
    text = " ".join(part.text for part in latest.parts or [] if part.text).lower()
    if not any(word in text for word in HANDOVER_WORDS):
        return None
    return LlmResponse.from_parts(
        [Part.from_text("I'll pass you to a colleague."), Part.from_agent_transfer("Human Agent")]
    )
