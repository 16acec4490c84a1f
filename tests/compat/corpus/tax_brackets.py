# args: {"income": 85000}
from decimal import Decimal

BRACKETS = [(Decimal(10000), Decimal("0")), (Decimal(40000), Decimal("0.2")), (None, Decimal("0.4"))]


def tax_brackets(income: int) -> dict:
    """Progressive income tax."""
    remaining = Decimal(income)
    lower = Decimal(0)
    tax = Decimal(0)
    parts = []
    for upper, rate in BRACKETS:
        span = remaining if upper is None else min(remaining, upper - lower)
        if span <= 0:
            break
        part = span * rate
        parts.append(f"{span:,.0f} @ {rate:.0%} = {part:,.2f}")
        tax += part
        remaining -= span
        lower = upper if upper is not None else lower
    return {"tax": f"{tax:.2f}", "effective": f"{tax / Decimal(income):.2%}", "parts": parts}
