# args: {"points": [[1, 2], [3, 4], [5, 6]]}
from collections import namedtuple
from typing import NamedTuple


class Point(NamedTuple):
    x: float
    y: float
    label: str = "p"

    def norm(self) -> float:
        return (self.x**2 + self.y**2) ** 0.5

    def __str__(self) -> str:
        return f"{self.label}({self.x}, {self.y})"


Pair = namedtuple("Pair", "left right", defaults=[None])


def typing_namedtuple_api(points: list) -> dict:
    """NamedTuple methods and documented underscore API."""
    pts = [Point(*p) for p in points]
    moved = pts[0]._replace(x=10, label="moved")
    x, y, _ = pts[1]
    return {
        "str": [str(p) for p in pts],
        "repr": repr(moved),
        "norm": round(pts[2].norm(), 3),
        "asdict": moved._asdict(),
        "fields": list(Point._fields),
        "defaults": Point._field_defaults,
        "make": repr(Point._make([7, 8, "m"])),
        "unpacked": [x, y],
        "tuple_ops": [len(moved), moved[0], list(moved[:2]), moved.index(10), moved.count(10)],
        "pair": repr(Pair(1)),
        "pair_fields": Pair._fields,
        "sorted": [p.label for p in sorted(pts + [moved], key=lambda p: -p.x)],
        "eq_tuple": Point(1, 2) == (1, 2, "p"),
    }
