# args: {"total": "187.40", "people": ["ana", "bo", "cy"], "tip_percent": 15}
from decimal import Decimal, ROUND_DOWN


def split_bill(total: str, people: list[str], tip_percent: int = 10) -> dict:
    """Split a bill fairly, cent by cent."""
    amount = Decimal(total) * (1 + Decimal(tip_percent) / 100)
    amount = amount.quantize(Decimal("0.01"))
    share = (amount / len(people)).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
    remainder = amount - share * len(people)
    shares = {p: share for p in people}
    cents = int(remainder * 100)
    for person in people[:cents]:
        shares[person] += Decimal("0.01")
    return {"total": str(amount), "shares": {p: str(s) for p, s in shares.items()}}
