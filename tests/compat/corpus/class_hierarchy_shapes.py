# args: {"specs": [["square", 2], ["circle", 1], ["square", 3]]}
import math


class Shape:
    registry = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)

    def area(self):
        raise NotImplementedError

    def __lt__(self, other):
        return self.area() < other.area()

    def __repr__(self):
        return f"{type(self).__name__}({self.area():.2f})"


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side**2


class Circle(Shape):
    def __init__(self, radius):
        self.radius = radius

    def area(self):
        return math.pi * self.radius**2


def class_hierarchy_shapes(specs: list) -> dict:
    """Sort shapes by area."""
    kinds = {"square": Square, "circle": Circle}
    shapes = [kinds[k](v) for k, v in specs]
    return {"sorted": [repr(s) for s in sorted(shapes)], "subclass": issubclass(Square, Shape)}
