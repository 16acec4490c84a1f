# args: {"settings": {"theme": "dark", "font_size": 14}}
class Settings:
    """Attribute access backed by a dict, with defaults."""

    def __init__(self, values):
        super().__setattr__("_values", dict(values))
        super().__setattr__("_changes", [])

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"no setting {name!r}") from None

    def __setattr__(self, name, value):
        self._changes.append(name)
        self._values[name] = value

    def __delattr__(self, name):
        self._values.pop(name, None)

    def __dir__(self):
        return sorted(self._values)


def class_dynamic_attributes(settings: dict) -> dict:
    """Dynamic attributes with __getattr__/__setattr__/__delattr__."""
    s = Settings(settings)
    s.language = "pt"
    s.font_size += 2
    del s.theme
    errors = []
    try:
        s.theme
    except AttributeError as error:
        errors.append(str(error))
    return {
        "font": s.font_size,
        "language": getattr(s, "language"),
        "missing": getattr(s, "colour", "default"),
        "has": [hasattr(s, "language"), hasattr(s, "theme")],
        "changes": s._changes,
        "dir": dir(s),
        "errors": errors,
        "vars_keys": sorted(vars(s)),
    }
