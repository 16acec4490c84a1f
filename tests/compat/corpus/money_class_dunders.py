# args: {"amounts": ["10.50", "3.25", "0.99"], "currency": "EUR"}
from decimal import Decimal
from functools import total_ordering


@total_ordering
class Money:
    def __init__(self, amount, currency="EUR"):
        self.amount = Decimal(amount)
        self.currency = currency

    def __add__(self, other):
        if isinstance(other, int) and other == 0:
            return self
        if other.currency != self.currency:
            raise ValueError("currency mismatch")
        return Money(self.amount + other.amount, self.currency)

    __radd__ = __add__

    def __mul__(self, factor):
        return Money(self.amount * Decimal(str(factor)), self.currency)

    def __eq__(self, other):
        return (self.amount, self.currency) == (other.amount, other.currency)

    def __lt__(self, other):
        return self.amount < other.amount

    def __hash__(self):
        return hash((self.amount, self.currency))

    def __format__(self, spec):
        return f"{self.amount:{spec or '.2f'}} {self.currency}"

    def __str__(self):
        return format(self)

    def __repr__(self):
        return f"Money({str(self.amount)!r}, {self.currency!r})"

    def __bool__(self):
        return self.amount != 0


def money_class_dunders(amounts: list[str], currency: str) -> dict:
    """Add up money amounts."""
    values = [Money(a, currency) for a in amounts]
    total = sum(values)
    doubled = total.__add__(total)
    return {
        "total": f"{total}",
        "total_fmt": f"{total:>10.1f}",
        "doubled": str(doubled),
        "max": repr(max(values)),
        "sorted": [str(v) for v in sorted(values)],
        "with_tax": format(total * 1.2, ".3f"),
        "truthy": bool(Money("0")),
        "unique": len({Money("1"), Money("1.0")}),
    }
