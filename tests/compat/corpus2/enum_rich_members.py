# args: {"code": "EUR", "amount": 12.5}
from enum import Enum, unique


@unique
class Currency(Enum):
    EUR = ("€", 2)
    USD = ("$", 2)
    JPY = ("¥", 0)

    def __init__(self, symbol, decimals):
        self.symbol = symbol
        self.decimals = decimals

    def format(self, amount: float) -> str:
        return f"{self.symbol}{amount:,.{self.decimals}f}"

    @classmethod
    def from_symbol(cls, symbol: str) -> "Currency":
        for member in cls:
            if member.symbol == symbol:
                return member
        raise ValueError(f"unknown symbol {symbol!r}")

    @property
    def label(self) -> str:
        return self.name.title()

    def __str__(self) -> str:
        return self.name


def enum_rich_members(code: str, amount: float) -> dict:
    """An Enum carrying data, methods and properties."""
    currency = Currency[code]
    try:
        Currency.from_symbol("£")
        missing = None
    except ValueError as error:
        missing = str(error)
    try:
        Currency("EUR")
    except ValueError as error:
        by_value = str(error)
    return {
        "formatted": currency.format(amount),
        "yen": Currency.JPY.format(1234.5),
        "symbol": Currency.from_symbol("$").label,
        "str": str(currency),
        "repr": repr(currency),
        "value": list(currency.value),
        "missing": missing,
        "by_value": by_value,
        "count": len(Currency),
        "identity": Currency(("€", 2)) is Currency.EUR,
    }
