# args: {"readings": [21.5, -3.0, 100.0]}
class Registry:
    """One registry per process."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance.items = []
        return cls._instance


class Celsius(float):
    """An immutable temperature: a float with a unit."""

    def __new__(cls, value):
        if value < -273.15:
            raise ValueError("below absolute zero")
        return super().__new__(cls, round(value, 1))

    def __repr__(self):
        return f"{float(self)}°C"

    @property
    def fahrenheit(self):
        return round(self * 9 / 5 + 32, 1)


class Point(tuple):
    def __new__(cls, x, y):
        return tuple.__new__(cls, (x, y))

    @property
    def x(self):
        return self[0]


class Plain:
    def __init__(self, value):
        self.value = value


def new_singleton_and_values(readings: list[float]) -> dict:
    """__new__ for singletons and immutable value types."""
    Registry().items.append("a")
    Registry().items.append("b")
    temps = [Celsius(r) for r in readings]
    try:
        Celsius(-300)
        error = None
    except ValueError as exc:
        error = str(exc)
    bare = object.__new__(Plain)
    return {
        "same": Registry() is Registry(),
        "items": Registry().items,
        "temps": [repr(t) for t in temps],
        "fahrenheit": [t.fahrenheit for t in temps],
        "is_float": isinstance(temps[0], float),
        "sum": sum(temps),
        "error": error,
        "point": [Point(1, 2).x, list(Point(1, 2))],
        "bare_has_value": hasattr(bare, "value"),
    }
