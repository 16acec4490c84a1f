# args: {"raw": " +1 (415) 555-0134 ext. 9 "}
import re

_DIGITS = re.compile(r"\d")


def _only_digits(text):
    return "".join(_DIGITS.findall(text))


def clean_phone_number(raw: str) -> dict:
    """Normalize a phone number to E.164."""
    main, _, extension = raw.lower().partition("ext")
    digits = _only_digits(main)
    if len(digits) == 10:
        digits = "1" + digits
    return {"e164": "+" + digits, "extension": _only_digits(extension) or None, "valid": len(digits) == 11}
