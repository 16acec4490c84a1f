import typing
from typing import Any, Literal, NamedTuple, Optional, TypedDict


class Point(NamedTuple):
    x: int
    y: int = 0


class Movie(TypedDict):
    title: str


def warm_up() -> str:
    point: Optional[Point] = Point(1)._replace(y=2)  # noqa: UP045 - Optional, as tools write it
    mode: Literal["a"] = "a"
    return repr(
        [
            point._asdict() if point is not None else None,
            Movie(title="t"),
            typing.get_type_hints(Point),
            typing.get_origin(list[int]) is list,
            typing.get_args(dict[str, Any]),
            mode,
        ]
    )
