# args: {"payload": "{\"amount\": 10.10, \"items\": [{\"__type__\": \"point\", \"x\": 1, \"y\": 2}], \"b\": 1, \"a\": 2, \"a\": 3}"}
import json
from collections import OrderedDict
from decimal import Decimal


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __repr__(self):
        return f"Point({self.x}, {self.y})"


def hook(obj):
    if obj.get("__type__") == "point":
        return Point(obj["x"], obj["y"])
    return obj


def json_object_hooks(payload: str) -> dict:
    """Decode JSON into objects, exact decimals and ordered pairs."""
    data = json.loads(payload, object_hook=hook, parse_float=Decimal)
    pairs = json.loads(payload, object_pairs_hook=lambda pairs: pairs)
    ordered = json.loads(payload, object_pairs_hook=OrderedDict)
    ints = json.loads("[1, 2.0, 3e2]", parse_int=str, parse_float=lambda s: f"f:{s}")
    return {
        "amount": repr(data["amount"]),
        "items": repr(data["items"]),
        "pairs_keys": [k for k, _ in pairs],
        "ordered_last": list(ordered.items())[-1],
        "ordered_type": type(ordered).__name__,
        "ints": ints,
        "constant": json.loads("[NaN, Infinity]", parse_constant=lambda c: c.lower()),
        "raw_decode": list(json.JSONDecoder().raw_decode('{"a": 1} trailing')),
    }
