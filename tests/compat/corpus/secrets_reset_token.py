# args: {"user": "ana"}
# context: {"state": {"tokens": {}}}
import secrets
import hashlib


def secrets_reset_token(user: str) -> dict:
    """Issue a password reset token (only its length and hash shape are returned)."""
    token = secrets.token_urlsafe(24)
    digest = hashlib.sha256(token.encode()).hexdigest()
    tokens = context.state["tokens"]
    tokens[user] = len(digest)
    context.state["tokens"] = tokens
    return {
        "token_length": len(token) >= 32,
        "hex_len": len(secrets.token_hex(8)),
        "below": secrets.randbelow(10) < 10,
        "same": secrets.compare_digest("abc", "abc"),
    }
