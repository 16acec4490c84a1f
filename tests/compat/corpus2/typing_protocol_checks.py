# args: {"items": ["circle", "square", "text"]}
from typing import Protocol, runtime_checkable


@runtime_checkable
class Drawable(Protocol):
    def draw(self) -> str: ...


@runtime_checkable
class Sized(Protocol):
    size: int


class Circle:
    def draw(self) -> str:
        return "()"


class Square:
    size = 4

    def draw(self) -> str:
        return "[]"


class Text:
    def __init__(self):
        self.size = 11


def render(shape: Drawable) -> str:
    return shape.draw()


def typing_protocol_checks(items: list[str]) -> dict:
    """Structural typing with runtime-checkable protocols."""
    objects = {"circle": Circle(), "square": Square(), "text": Text()}
    chosen = [objects[name] for name in items]
    return {
        "drawable": [isinstance(o, Drawable) for o in chosen],
        "sized": [isinstance(o, Sized) for o in chosen],
        "drawn": [render(o) for o in chosen if isinstance(o, Drawable)],
        "issubclass": issubclass(Square, Drawable),
    }
