# args: {"kind": "square", "size": 3}
from abc import ABC, abstractmethod
import math


class Shape(ABC):
    @property
    @abstractmethod
    def area(self) -> float: ...

    @classmethod
    @abstractmethod
    def unit(cls) -> "Shape": ...

    def describe(self) -> str:
        return f"{type(self).__name__} with area {self.area:.2f}"


class Square(Shape):
    def __init__(self, side):
        self.side = side

    @property
    def area(self):
        return self.side**2

    @classmethod
    def unit(cls):
        return cls(1)


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return math.pi * self.r**2

    @classmethod
    def unit(cls):
        return cls(1)


class Broken(Shape):
    @property
    def area(self):
        return 0


def class_abstract_properties(kind: str, size: float) -> dict:
    """Abstract properties and classmethods."""
    shape = {"square": Square, "circle": Circle}[kind](size)
    try:
        Broken()
        error = None
    except TypeError as exc:
        error = str(exc)
    return {
        "describe": shape.describe(),
        "units": [s.unit().describe() for s in (Square, Circle)],
        "error": error,
        "abstract": sorted(Shape.__abstractmethods__),
        "isinstance": isinstance(shape, Shape),
    }
