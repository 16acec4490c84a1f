# context: {"user_content": {"role": "user", "parts": [{"text": "first line"}, {"text": "second: call me at 555-0101"}]}}
import re


def ces_multi_part_message() -> dict:
    """Gather every text part of the user's message and pull out a phone number."""
    text = "\n".join(part["text"] for part in context.user_content["parts"] if "text" in part)
    phone = re.search(r"\d{3}-\d{4}", text)
    return {"lines": text.splitlines(), "phone": phone[0] if phone else None}
