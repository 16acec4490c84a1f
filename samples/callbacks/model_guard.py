"""A before_model callback: a request that asks for a password gets a canned answer instead."""


def before_model_callback(callback_context, llm_request):
    text = " ".join(
        part.get("text", "") for message in llm_request.get("contents", []) for part in message.get("parts", [])
    )
    if "password" not in text.lower():
        return None
    callback_context.state["blocked_requests"] = callback_context.state.get("blocked_requests", 0) + 1
    return {"content": {"role": "model", "parts": [{"text": "I can't help with passwords."}]}}
