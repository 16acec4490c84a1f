# args: {"names": "RED GREEN BLUE"}
from enum import Enum, IntFlag, unique


def enum_unique_functional(names: str) -> dict:
    """Enums built with the functional API, aliases and @unique."""
    Color = Enum("Color", names)
    Shape = Enum("Shape", [("CIRCLE", 1), ("SQUARE", 2), ("ROUND", 1)])
    try:

        @unique
        class Size(Enum):
            SMALL = 1
            TINY = 1

        unique_error = None
    except ValueError as error:
        unique_error = str(error)
    Mode = IntFlag("Mode", ["R", "W", "X"])
    return {
        "colors": [(c.name, c.value) for c in Color],
        "alias": Shape.ROUND is Shape.CIRCLE,
        "shape_members": [s.name for s in Shape],
        "all_names": list(Shape.__members__),
        "unique_error": unique_error,
        "mode": int(Mode.R | Mode.X),
        "color_repr": repr(Color.GREEN),
        "missing": Color.__members__.get("PINK"),
    }
