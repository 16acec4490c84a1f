# args: {"raw": "{bad json"}
import json


class PayloadError(Exception):
    pass


def err_raise_from_chain(raw: str) -> dict:
    """Parse a payload, wrapping the decoder's error."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise PayloadError(f"invalid payload: {error.msg}") from error
