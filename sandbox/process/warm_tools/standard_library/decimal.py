import decimal


def warm_up() -> str:
    return repr(
        [
            str(decimal.Decimal("1.005").quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)),
            f"{decimal.Decimal('1234.5'):,.2f}",
            decimal.Decimal(1) / 3,
            float(decimal.Decimal("2.5")),
        ]
    )
