# args: {"a": [1, 2], "b": [3, -1]}
class Vector:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, other):
        return Vector(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vector(self.x - other.x, self.y - other.y)

    def __mul__(self, k):
        return Vector(self.x * k, self.y * k)

    __rmul__ = __mul__

    def __neg__(self):
        return Vector(-self.x, -self.y)

    def __abs__(self):
        return (self.x**2 + self.y**2) ** 0.5

    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)

    def __iter__(self):
        yield self.x
        yield self.y

    def __repr__(self):
        return f"Vector({self.x}, {self.y})"


def vector_math(a: list, b: list) -> dict:
    """Vector arithmetic."""
    u, v = Vector(*a), Vector(*b)
    return {
        "sum": list(u + v),
        "diff": repr(u - v),
        "scaled": list(2 * u),
        "neg": list(-v),
        "norm": round(abs(u), 4),
        "equal": u == Vector(1, 2),
    }
