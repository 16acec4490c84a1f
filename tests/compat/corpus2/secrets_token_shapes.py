# args: {"length": 12}
import secrets
import string


def secrets_token_shapes(length: int) -> dict:
    """Random tokens: checked by shape, not value."""
    alphabet = string.ascii_letters + string.digits
    password = "".join(secrets.choice(alphabet) for _ in range(length))
    token = secrets.token_urlsafe(16)
    hex_token = secrets.token_hex(8)
    raw = secrets.token_bytes(5)
    below = secrets.randbelow(10)
    bits = secrets.randbits(8)
    return {
        "password_ok": len(password) == length and all(c in alphabet for c in password),
        "urlsafe_ok": len(token) >= 16 and all(c.isalnum() or c in "-_" for c in token),
        "hex_ok": len(hex_token) == 16 and int(hex_token, 16) >= 0,
        "bytes_len": len(raw),
        "below_ok": 0 <= below < 10,
        "bits_ok": 0 <= bits < 256,
        "compare": [secrets.compare_digest("a", "a"), secrets.compare_digest(b"a", b"b")],
        "sysrandom": isinstance(secrets.SystemRandom().random(), float),
    }
