# args: {"amount": 1234.5, "code": "EUR"}
class Price:
    def __init__(self, amount, code):
        self.amount, self.code = amount, code

    def __repr__(self):
        return f"Price(amount={self.amount!r}, code={self.code!r})"

    def __str__(self):
        return f"{self.amount:.2f} {self.code}"

    def __format__(self, spec):
        if spec == "short":
            return f"{self.amount:.0f}{self.code[0]}"
        if spec.endswith("c"):
            return format(self.amount, spec[:-1] or ",.2f") + " " + self.code
        return format(str(self), spec)


def class_repr_str_format(amount: float, code: str) -> dict:
    """__repr__, __str__ and __format__ with every way of formatting."""
    p = Price(amount, code)
    print(p)
    print(repr(p), [p])
    return {
        "str": str(p),
        "repr": repr(p),
        "fstring": f"{p}",
        "conversions": f"{p!r} | {p!s}",
        "short": f"{p:short}",
        "custom": f"{p:,.1fc}",
        "padded": f"[{p:>16}]",
        "format_call": format(p, "short"),
        "str_format": "{0:short} / {0!r}".format(p),
        "percent": "%s and %r" % (p, p),
        "in_list": str([p]),
    }
