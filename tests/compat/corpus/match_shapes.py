# args: {"shapes": [{"kind": "circle", "r": 2}, {"kind": "rect", "w": 2, "h": 3}, {"kind": "tri"}]}
import math
from dataclasses import dataclass


@dataclass
class Circle:
    r: float


@dataclass
class Rect:
    w: float
    h: float


def build(spec):
    match spec:
        case {"kind": "circle", "r": r}:
            return Circle(r)
        case {"kind": "rect", "w": w, "h": h}:
            return Rect(w, h)
        case _:
            return None


def area(shape):
    match shape:
        case Circle(r=r):
            return round(math.pi * r**2, 2)
        case Rect(w, h) if w == h:
            return w * w
        case Rect(w=w, h=h):
            return w * h
        case None:
            return 0


def match_shapes(shapes: list[dict]) -> list:
    """Compute areas of shapes."""
    return [area(build(s)) for s in shapes]
