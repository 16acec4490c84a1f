# args: {"customer": {"name": "Rui", "order": "B-4", "amount": 12.5}}
import string
from string import Template

BODY = Template("Dear $name,\nyour order ${order} of $$${amount} ships $when.")


def string_template_mail(customer: dict) -> dict:
    """Fill a mail template, with and without every placeholder."""
    partial = BODY.safe_substitute(customer)
    try:
        BODY.substitute(customer)
        strict = "ok"
    except KeyError as missing:
        strict = f"missing {missing}"
    full = BODY.substitute(customer, when="today")
    return {
        "partial": partial,
        "strict": strict,
        "full": full,
        "identifiers": BODY.get_identifiers(),
        "valid": BODY.is_valid(),
        "capwords": string.capwords("hello   big world"),
        "letters": string.ascii_lowercase[:5] + string.digits[-3:] + string.punctuation[:3],
    }
