# args: {"names": ["int", "Widget", "len"]}
class Widget:
    pass


REGISTRY = {"int": int, "Widget": Widget, "len": len}


def isinstance_type_registry(names: list[str]) -> dict:
    """Classify registered objects."""
    out = {}
    for name in names:
        obj = REGISTRY[name]
        out[name] = {
            "is_class": isinstance(obj, type),
            "callable": callable(obj),
            "name": obj.__name__,
            "builtin": getattr(obj, "__module__", None) == "builtins",
        }
    return out
