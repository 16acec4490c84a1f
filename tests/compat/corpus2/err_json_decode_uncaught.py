# args: {"raw": "[1, 2,"}
import json


def err_json_decode_uncaught(raw: str) -> list:
    """Malformed JSON left to propagate."""
    return json.loads(raw)
