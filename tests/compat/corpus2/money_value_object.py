# args: {"prices": [["19.99", "EUR"], ["5.01", "EUR"], ["3.50", "USD"], ["0.10", "EUR"]]}
from dataclasses import dataclass
from decimal import Decimal


class CurrencyMismatch(ValueError):
    pass


@dataclass(frozen=True, order=True)
class Money:
    amount: Decimal
    currency: str

    def __add__(self, other: "Money") -> "Money":
        if other.currency != self.currency:
            raise CurrencyMismatch(f"{self.currency} != {other.currency}")
        return Money(self.amount + other.amount, self.currency)

    def __str__(self) -> str:
        return f"{self.amount:,.2f} {self.currency}"


def money_value_object(prices: list) -> dict:
    """Add up prices per currency with an immutable Money type."""
    monies = [Money(Decimal(a), c) for a, c in prices]
    totals: dict[str, Money] = {}
    errors = []
    for money in monies:
        try:
            totals[money.currency] = totals[money.currency] + money if money.currency in totals else money
        except CurrencyMismatch as error:
            errors.append(str(error))
        try:
            money + monies[0]
        except CurrencyMismatch as error:
            errors.append(f"mix: {error}")
    return {
        "totals": {c: str(m) for c, m in sorted(totals.items())},
        "cheapest": str(min(monies)),
        "sorted": [str(m) for m in sorted(monies)],
        "errors": errors,
        "hashable": len({monies[0], Money(Decimal("19.99"), "EUR")}),
        "repr": repr(monies[0]),
    }
