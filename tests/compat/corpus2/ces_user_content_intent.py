# context: {"user_content": {"role": "user", "parts": [{"text": "Hi, I'd like a REFUND for order 55-A"}]}}
import re

INTENTS = {
    "refund": ("refund", "money back", "reimburse"),
    "cancel": ("cancel", "stop"),
    "track": ("where is", "track", "status"),
}


def ces_user_content_intent() -> dict:
    """Classify the user's last message into an intent."""
    text = context.user_content["parts"][0]["text"]
    lowered = text.lower()
    intent = next(
        (name for name, words in INTENTS.items() if any(word in lowered for word in words)),
        "unknown",
    )
    order = re.search(r"\b(\d{2,}-[A-Z])\b", text)
    context.state["last_intent"] = intent
    return {"intent": intent, "order": order.group(1) if order else None, "role": context.user_content["role"]}
