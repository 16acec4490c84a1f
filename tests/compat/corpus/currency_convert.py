# args: {"amount": 250, "source": "usd", "target": "jpy"}
RATES_TO_EUR = {"EUR": 1.0, "USD": 0.92, "GBP": 1.17, "JPY": 0.0062}


class UnknownCurrency(KeyError):
    pass


def _rate(code):
    try:
        return RATES_TO_EUR[code.upper()]
    except KeyError:
        raise UnknownCurrency(code) from None


def currency_convert(amount: float, source: str, target: str) -> dict:
    """Convert between currencies."""
    try:
        value = amount * _rate(source) / _rate(target)
    except UnknownCurrency as error:
        return {"error": f"unknown currency {error.args[0]}"}
    return {
        "amount": round(value, 2),
        "text": f"{amount:,.2f} {source.upper()} = {value:,.0f} {target.upper()}",
    }
