# args: {"values": [1, 2.5, true, "s", [1], {"a": 1}, [1, 2], null]}
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence, Sized
from numbers import Integral, Number, Real


def kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "mapping"
    if isinstance(value, Sequence):
        return "sequence"
    return "other"


def isinstance_abc_checks(values: list) -> dict:
    """isinstance with tuples, ABCs from collections.abc and numbers."""
    return {
        "kinds": [kind(v) for v in values],
        "iterable": [isinstance(v, Iterable) for v in values],
        "sized": [isinstance(v, Sized) for v in values],
        "mutable_mapping": isinstance({}, MutableMapping),
        "callable": [isinstance(len, Callable), isinstance(3, Callable)],
        "numbers": [isinstance(v, Number) for v in values[:4]],
        "integral": [isinstance(True, Integral), isinstance(2.0, Real)],
        "issubclass": [issubclass(bool, int), issubclass(dict, Mapping), issubclass(list, (str, Sequence))],
        "type_is": [type(v) is int for v in values[:3]],
    }
