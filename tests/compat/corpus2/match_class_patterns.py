# args: {"shapes": [{"type": "circle", "r": 2}, {"type": "rect", "w": 3, "h": 3}, {"type": "rect", "w": 2, "h": 5}, {"type": "point"}, {"type": "line", "points": [[0, 0], [3, 4]]}]}
import math
from dataclasses import dataclass


@dataclass
class Circle:
    r: float


@dataclass
class Rect:
    w: float
    h: float


@dataclass
class Line:
    start: tuple
    end: tuple


def build(raw: dict):
    match raw:
        case {"type": "circle", "r": r}:
            return Circle(r)
        case {"type": "rect", "w": w, "h": h}:
            return Rect(w, h)
        case {"type": "line", "points": [start, end]}:
            return Line(tuple(start), tuple(end))
        case {"type": other, **rest}:
            return f"unknown {other} with {sorted(rest)}"


def describe(shape) -> str:
    match shape:
        case Circle(r=0):
            return "dot"
        case Circle(r):
            return f"circle area {math.pi * r * r:.2f}"
        case Rect(w, h) if w == h:
            return f"square {w}"
        case Rect(w=width, h=height):
            return f"rect {width}x{height}"
        case Line((x1, y1), (x2, y2)):
            return f"line length {math.dist((x1, y1), (x2, y2))}"
        case str() as text:
            return text
        case _:
            return "?"


def match_class_patterns(shapes: list[dict]) -> list:
    """Structural pattern matching over dicts and dataclasses."""
    return [describe(build(raw)) for raw in shapes]
