# args: {"code": 2}
from enum import Enum, IntEnum


class Weekday(IntEnum):
    _ignore_ = ["i"]
    MON = 1
    TUE = 2
    WED = 3

    def __str__(self):
        return self.name.title()

    @property
    def weekend(self):
        return False


class Color(Enum):
    RED = "r"
    GREEN = "g"

    def __format__(self, spec):
        return format(self.name.lower(), spec)


def enum_ignore_and_str(code: int) -> dict:
    """Enums with _ignore_, __str__, __format__ and properties."""
    day = Weekday(code)
    return {"str": str(day), "fstr": f"{day}", "repr": repr(day), "weekend": day.weekend, "color": f"[{Color.RED:>5}]", "members": [d.name for d in Weekday]}
