# args: {"amount": "12,50"}
from decimal import Decimal


def err_decimal_invalid(amount: str) -> str:
    """Decimal of a malformed string."""
    return str(Decimal(amount))
