# context: {"events": [{"author": "user", "text": "hi"}, {"author": "agent", "text": "hello"}, {"author": "user", "text": "bye"}]}
from collections import Counter


def events_summary() -> dict:
    """Count who spoke in the session."""
    authors = Counter(e.get("author") for e in context.events)
    return {"authors": dict(authors), "count": len(context.events)}
