# args: {"template": "Hi {name}, your {item} ships {when}.", "values": {"name": "Ana", "item": "lamp"}}
class Defaults(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def format_map_missing_keys(template: str, values: dict) -> dict:
    """Partial template filling with format_map and __missing__."""
    partial = template.format_map(Defaults(values))
    try:
        template.format(**values)
        strict = None
    except KeyError as error:
        strict = f"missing {error}"
    return {"partial": partial, "strict": strict, "escaped": "{{{0}}}".format("x"), "positional": "{0}{1}{0}".format("a", "b")}
