def after_model_callback(callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse | None:
    """Shouts every answer (disabled in Support_Agent.json, so it never runs)."""
    parts = [Part.from_text((part.text or "").upper()) for part in llm_response.content.parts or []]
    return LlmResponse.from_parts(parts)
