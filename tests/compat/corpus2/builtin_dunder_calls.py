# args: {"numbers": [3, 4, 5]}
from functools import reduce


def builtin_dunder_calls(numbers: list[int]) -> dict:
    """Special methods of builtin types called directly."""
    return {
        "reduce_add": reduce(int.__add__, numbers),
        "len": [s.__len__() for s in ["ab", "cde"]],
        "contains": [1, 2].__contains__(2),
        "str_mul": str.__mul__("ab", 2),
        "getitem": {"a": 1}.__getitem__("a"),
        "eq": (1).__eq__(1),
        "sorted_lt": sorted(numbers, key=int.__neg__),
    }
