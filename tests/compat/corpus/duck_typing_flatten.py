# args: {"data": [1, [2, [3, "ab"]], {"k": 4}, [], "cd"]}
def flatten(value):
    if isinstance(value, (str, bytes)):
        yield value
    elif isinstance(value, dict):
        yield from flatten(list(value.values()))
    elif hasattr(value, "__iter__"):
        for item in value:
            yield from flatten(item)
    else:
        yield value


def duck_typing_flatten(data: list) -> dict:
    """Flatten nested data."""
    flat = list(flatten(data))
    return {
        "flat": flat,
        "iterable_int": hasattr(5, "__iter__"),
        "has_len": [hasattr(x, "__len__") for x in (data, 3, "s")],
        "callable": callable(flatten),
        "upper": getattr("text", "upper")(),
        "missing": getattr(data, "nothing", "default"),
    }
