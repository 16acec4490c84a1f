# args: {"values": [1, "two", [3]]}
from functools import cached_property, singledispatchmethod


class Formatter:
    def __init__(self, prefix):
        self.prefix = prefix

    @singledispatchmethod
    def render(self, value):
        return f"{self.prefix}?{value!r}"

    @render.register
    def _(self, value: int):
        return f"{self.prefix}#{value}"

    @render.register
    def _(self, value: str):
        return f"{self.prefix}'{value}'"

    @cached_property
    def banner(self):
        return self.prefix * 3

    @classmethod
    def default(cls):
        return cls(">")

    @staticmethod
    def version():
        return "1.0"


def singledispatchmethod_and_cached_class(values: list) -> dict:
    """singledispatchmethod, cached_property, classmethod and staticmethod together."""
    f = Formatter.default()
    return {"rendered": [f.render(v) for v in values], "banner": f.banner, "version": Formatter.version(), "cached": "banner" in vars(f)}
