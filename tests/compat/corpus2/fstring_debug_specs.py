# args: {"amount": 1234.5678, "label": "net"}
from datetime import date


def fstring_debug_specs(amount: float, label: str) -> dict:
    """F-strings with = debugging, conversions and nested format specs."""
    width = 12
    precision = 2
    day = date(2026, 3, 9)
    items = {"a": 1}
    debug = f"{amount=}"
    print(f"{label=} {amount = :.1f}")
    return {
        "debug": debug,
        "debug_spec": f"{amount=:,.2f}",
        "repr_conv": f"{label!r:>8}",
        "str_conv": f"{label!s:_<6}",
        "ascii_conv": f"{'é'!a}",
        "nested": f"{amount:>{width}.{precision}f}",
        "date": f"{day:%d/%m/%Y} {day:%a}",
        "expr": f"{amount * 2:.0f} {len(label) + 1} {items['a']}",
        "braces": f"{{literal}} {label.upper()}",
        "ternary": f"{'high' if amount > 1000 else 'low'}",
        "multi": f"""{label}
{amount:.1f}""",
        "self_doc_expr": f"{len(label)=}",
    }
