# args: {"width": 3, "height": 4}
from dataclasses import dataclass, field


@dataclass
class Rectangle:
    width: float
    height: float
    area: float = field(init=False)
    _label: str = field(default="", repr=False)

    def __post_init__(self):
        if self.width <= 0 or self.height <= 0:
            raise ValueError("sides must be positive")
        self.area = self.width * self.height
        self._label = f"{self.width}x{self.height}"


def dataclass_post_init(width: float, height: float) -> dict:
    """Describe a rectangle."""
    r = Rectangle(width, height)
    try:
        Rectangle(0, 1)
        error = None
    except ValueError as exc:
        error = str(exc)
    return {"area": r.area, "label": r._label, "repr": repr(r), "error": error}
