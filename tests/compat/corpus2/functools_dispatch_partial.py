# args: {"values": [3, "4", 2.5, [1, 2], null]}
from functools import cached_property, cmp_to_key, partial, reduce, singledispatch


@singledispatch
def describe(value) -> str:
    return f"something: {value!r}"


@describe.register
def _(value: int) -> str:
    return f"int {value}"


@describe.register(str)
def _describe_str(value) -> str:
    return f"str {value!r}"


@describe.register(list)
def _describe_list(value) -> str:
    return "list of " + ", ".join(describe(v) for v in value)


def power(base, exponent, *, modulo=None):
    return pow(base, exponent, modulo)


class Report:
    def __init__(self, values):
        self.values = values
        self.computed = 0

    @cached_property
    def total(self):
        self.computed += 1
        return sum(v for v in self.values if isinstance(v, (int, float)))


def compare_len_then_alpha(a, b):
    return (len(a) > len(b)) - (len(a) < len(b)) or (a > b) - (a < b)


def functools_dispatch_partial(values: list) -> dict:
    """singledispatch, partial, reduce, cmp_to_key and cached_property."""
    square = partial(power, exponent=2)
    cube_mod = partial(power, exponent=3, modulo=7)
    report = Report(values)
    report.total
    report.total
    return {
        "described": [describe(v) for v in values],
        "square": [square(n) for n in range(4)],
        "cube_mod": cube_mod(5),
        "partial_attrs": [square.func.__name__, square.keywords],
        "reduce": reduce(lambda acc, v: acc + [v * 2], [1, 2, 3], []),
        "reduce_no_init": reduce(lambda a, b: a * b, [1, 2, 3, 4]),
        "sorted_cmp": sorted(["bb", "a", "ccc", "ab"], key=cmp_to_key(compare_len_then_alpha)),
        "total": report.total,
        "computed": report.computed,
        "dispatch_types": sorted(t.__name__ for t in describe.registry),
    }
