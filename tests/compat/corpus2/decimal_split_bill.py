# args: {"total": "100.00", "people": ["ana", "bo", "cy"], "tip_percent": 12.5}
from decimal import ROUND_DOWN, Decimal


def decimal_split_bill(total: str, people: list[str], tip_percent: float) -> dict:
    """Split a bill with tip so the shares add up to the cent."""
    amount = Decimal(total) * (1 + Decimal(str(tip_percent)) / 100)
    amount = amount.quantize(Decimal("0.01"))
    share = (amount / len(people)).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
    remainder = int((amount - share * len(people)) * 100)
    shares = {name: share + (Decimal("0.01") if i < remainder else 0) for i, name in enumerate(people)}
    assert sum(shares.values()) == amount
    return {"amount": f"{amount:.2f}", "shares": {k: str(v) for k, v in shares.items()}, "remainder_cents": remainder}
