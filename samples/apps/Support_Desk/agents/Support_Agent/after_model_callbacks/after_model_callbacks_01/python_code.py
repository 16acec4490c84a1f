def after_model_callback(callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse | None:
    """Adds the refund status to an answer that talks about refunds."""
    status = callback_context.get_variable("refund_status", "none")
    content = llm_response.content
    if status == "none" or content is None or not content.is_model():
        return None
    if not any(part.text and "refund" in part.text.lower() for part in content.parts or []):
        return None
    content.parts.append(Part.from_text(f"(Refund status: {status}.)"))
    return llm_response
