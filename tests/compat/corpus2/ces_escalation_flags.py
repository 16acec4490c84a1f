# args: {"message": "This is the THIRD time, I want a manager now!!"}
# context: {"state": {"frustration": "1", "escalated": "false"}}
ANGRY_WORDS = ("manager", "third time", "ridiculous", "lawyer")


def ces_escalation_flags(message: str) -> dict:
    """Decide whether to escalate to a human."""
    score = int(context.state.get("frustration", "0"))
    score += sum(word in message.lower() for word in ANGRY_WORDS)
    score += message.count("!") // 2
    escalate = score >= 3 or context.state.get("escalated") == "true"
    context.state["frustration"] = str(score)
    context.state["escalated"] = "true" if escalate else "false"
    return {"escalate": escalate, "score": score}
