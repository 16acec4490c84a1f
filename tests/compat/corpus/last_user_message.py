# context: {"user_content": {"role": "user", "parts": [{"text": "I want to  CANCEL my order #123 please"}]}}
import re


def last_user_message() -> dict:
    """Detect intent in the last user message."""
    parts = context.user_content.get("parts", [])
    text = " ".join(p.get("text", "") for p in parts).strip()
    intent = "cancel" if re.search(r"\bcancel\b", text, re.I) else "other"
    order = re.search(r"#(\d+)", text)
    context.state["last_intent"] = intent
    return {
        "intent": intent,
        "order": int(order.group(1)) if order else None,
        "agent": context.agent_name,
        "call": context.function_call_id,
    }
