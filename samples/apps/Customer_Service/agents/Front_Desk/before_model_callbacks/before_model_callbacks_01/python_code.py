LOYALTY_WORDS = ("points", "pontos", "loyalty", "cart", "carrinho")


def before_model_callback(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
    """Questions about loyalty points or the cart go straight to the loyalty desk."""
    latest = llm_request.contents[-1] if llm_request.contents else None
    if latest is None or not latest.is_user():
        return None
    text = " ".join(part.text for part in latest.parts or [] if part.text).lower()
    if not any(word in text for word in LOYALTY_WORDS):
        return None
    return LlmResponse.from_parts([Part.from_agent_transfer("Loyalty Desk")])
