# args: {"amounts": ["2.675", "2.665", "-1.005", "10", "0.1"]}
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext

CENT = Decimal("0.01")


def decimal_rounding_modes(amounts: list[str]) -> dict:
    """Round money amounts with the rounding modes banks use."""
    rows = {}
    for text in amounts:
        value = Decimal(text)
        rows[text] = [
            str(value.quantize(CENT, rounding=mode))
            for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN, ROUND_DOWN, ROUND_CEILING)
        ]
    with localcontext() as ctx:
        ctx.prec = 6
        third = Decimal(1) / Decimal(3)
    total = sum((Decimal(a) for a in amounts), Decimal("0"))
    return {
        "rows": rows,
        "third": str(third),
        "default_third": str(Decimal(1) / Decimal(3)),
        "total": str(total),
        "float_vs_decimal": [0.1 + 0.2 == 0.3, Decimal("0.1") + Decimal("0.2") == Decimal("0.3")],
        "from_float": str(Decimal(0.1))[:12],
        "tuple": list(Decimal("-3.140").as_tuple().digits),
        "normalize": str(Decimal("3.1400").normalize()),
        "exponent": Decimal("12.345").as_tuple().exponent,
        "sci": str(Decimal("1E+3")),
        "int": int(Decimal("7.99")),
        "round": [str(round(Decimal("2.5"))), str(round(Decimal("2.675"), 2))],
        "compare": Decimal("1.0") == 1,
        "sqrt": str(Decimal(2).sqrt())[:8],
        "nan": Decimal("NaN").is_nan(),
    }
