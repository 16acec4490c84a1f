# args: {"n": 4}
class Point:
    __slots__ = ("x", "y")

    def __init__(self, x: float, y: float) -> None:
        self.x = x
        self.y = y

    def __repr__(self) -> str:
        return f"Point({self.x}, {self.y})"


class Point3(Point):
    __slots__ = ("z",)

    def __init__(self, x, y, z):
        super().__init__(x, y)
        self.z = z


def class_slots_points(n: int) -> dict:
    """Memory-light objects with __slots__."""
    points = [Point(i, i * i) for i in range(n)]
    errors = []
    try:
        points[0].z = 1
    except AttributeError as error:
        errors.append(str(error))
    p3 = Point3(1, 2, 3)
    try:
        Point(0, 0).missing
    except AttributeError as error:
        errors.append(str(error))
    return {
        "points": [repr(p) for p in points],
        "p3": [p3.x, p3.y, p3.z],
        "errors": errors,
        "has_dict": [hasattr(points[0], "__dict__"), hasattr(p3, "__dict__")],
        "getattr_default": getattr(points[0], "z", "no z"),
        "slots": Point3.__slots__,
    }
