# args: {"payload": "{\"event\": \"paid\", \"id\": 42}", "secret": "whsec_test"}
import hashlib
import hmac
import json


def hmac_webhook_verify(payload: str, secret: str) -> dict:
    """Sign and verify a webhook payload."""
    signature = hmac.new(secret.encode(), payload.encode(), hashlib.sha256).hexdigest()
    tampered = hmac.new(secret.encode(), payload.replace("42", "43").encode(), hashlib.sha256).hexdigest()
    return {
        "signature": signature[:16],
        "valid": hmac.compare_digest(signature, signature),
        "tampered_valid": hmac.compare_digest(signature, tampered),
        "event": json.loads(payload)["event"],
    }
