import re

CARD = re.compile(r"(?:\d[ -]?){13,19}")


def before_model_callback(callback_context: CallbackContext, llm_request: LlmRequest) -> dict:
    """TRIGGER when the latest user message holds what looks like a card number, else OK."""
    latest = llm_request.contents[-1] if llm_request.contents else None
    if latest is None or not latest.is_user():
        return {"decision": "OK", "reason": "no user message"}
    text = " ".join(part.text for part in latest.parts or [] if part.text)
    if CARD.search(text):
        return {"decision": "TRIGGER", "reason": "the message holds a card number"}
    return {"decision": "OK", "reason": "no card number"}
