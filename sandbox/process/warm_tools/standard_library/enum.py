import enum


class Kind(enum.Enum):
    A = "a"


class Flags(enum.IntFlag):
    X = 1
    Y = 2


class Level(str, enum.Enum):  # noqa: UP042 - the str mixin, as tools write it
    LOW = "low"


def warm_up() -> str:
    return repr(
        [Kind("a").name, repr(Kind.A), str(Flags.X | Flags.Y), list(Kind), Level("low").value, Kind.A in Kind]
    )
