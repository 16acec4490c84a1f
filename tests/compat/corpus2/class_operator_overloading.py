# args: {"a": [1, 2], "b": [3, -4]}
import math


class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x=0.0, y=0.0):
        self.x, self.y = x, y

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def __radd__(self, other):
        return self if other == 0 else self + other

    def __sub__(self, other):
        return Vec(self.x - other.x, self.y - other.y)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __abs__(self):
        return math.hypot(self.x, self.y)

    def __eq__(self, other):
        return isinstance(other, Vec) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self):
        return hash((self.x, self.y))

    def __bool__(self):
        return bool(self.x or self.y)

    def __matmul__(self, other):
        return self.x * other.x + self.y * other.y

    def __iter__(self):
        yield self.x
        yield self.y

    def __repr__(self):
        return f"Vec({self.x:g}, {self.y:g})"


def class_operator_overloading(a: list, b: list) -> dict:
    """Vector arithmetic with operator overloading."""
    u, v = Vec(*a), Vec(*b)
    acc = Vec()
    acc += u
    acc *= 2
    return {
        "add": repr(u + v),
        "sub": repr(u - v),
        "scale": [repr(u * 3), repr(3 * u)],
        "neg": repr(-v),
        "abs": abs(v),
        "dot": u @ v,
        "sum": repr(sum([u, v, u])),
        "eq": [u == Vec(1, 2), u != v, u == (1, 2)],
        "bool": [bool(Vec()), bool(u)],
        "unpack": list(u),
        "acc": repr(acc),
        "set": len({u, Vec(1, 2), v}),
    }
