# args: {"body": "{\"event\": \"paid\", \"id\": 9}", "secret": "whsec_123", "timestamp": "1767225600"}
import hashlib
import hmac


def sign(secret: str, timestamp: str, body: str) -> str:
    message = f"{timestamp}.{body}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def hmac_signed_webhook(body: str, secret: str, timestamp: str) -> dict:
    """Sign and verify a webhook payload."""
    signature = sign(secret, timestamp, body)
    header = f"t={timestamp},v1={signature}"
    parts = dict(item.split("=", 1) for item in header.split(","))
    mac = hmac.new(secret.encode(), digestmod="sha256")
    mac.update(f"{timestamp}.".encode())
    mac.update(body.encode())
    return {
        "signature": signature,
        "valid": hmac.compare_digest(parts["v1"], sign(secret, parts["t"], body)),
        "tampered": hmac.compare_digest(signature, sign(secret, timestamp, body + " ")),
        "incremental": mac.hexdigest() == signature,
        "digest_fn": hmac.digest(b"k", b"m", "sha1").hex(),
        "name": mac.name,
    }
