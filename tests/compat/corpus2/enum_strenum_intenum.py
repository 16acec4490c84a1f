# args: {"status": "shipped", "level": 2}
from enum import IntEnum, StrEnum, auto


class Status(StrEnum):
    PENDING = auto()
    SHIPPED = auto()
    DELIVERED = "delivered"


class Level(IntEnum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3


def enum_strenum_intenum(status: str, level: int) -> dict:
    """StrEnum and IntEnum mix with plain strings and ints."""
    s = Status(status)
    lv = Level(level)
    return {
        "value": s.value,
        "str": str(s),
        "format": f"{s}|{lv}|{lv!r}",
        "eq_str": s == "shipped",
        "upper": s.upper(),
        "json_key": {s: 1}["shipped"],
        "auto": Status.PENDING.value,
        "int_math": lv + 1,
        "compare": lv > Level.LOW and lv < 3,
        "sorted": [m.name for m in sorted([Level.HIGH, Level.LOW, Level.MEDIUM])],
        "names": list(Level.__members__),
        "by_name": Level["HIGH"].value,
        "isinstance": [isinstance(s, str), isinstance(lv, int)],
    }
