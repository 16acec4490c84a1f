def ces_user_content_empty() -> dict:
    """Read the user's text when there may be none."""
    content = context.user_content
    parts = content.get("parts") or []
    texts = [part.get("text", "") for part in parts if part.get("text")]
    return {"role": content.get("role"), "text": " ".join(texts) or None, "n_parts": len(parts)}
