class Point:
    def __init__(self, x: int, y: int = 0) -> None:
        self.x, self.y = x, y

    def __repr__(self) -> str:
        return f"Point({self.x!r}, {self.y!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)


async def coroutine() -> int:
    return 1


def run() -> int | None:
    try:
        coroutine().send(None)
    except StopIteration as stop:
        return stop.value
    return None


def match_point(point: object) -> object:
    match point:
        case Point(x=0, y=y):
            return y
        case {"x": x}:
            return x
        case [a, b, *rest]:  # noqa: F841 - the sequence pattern with a star, as tools write it
            return a
        case _:
            return None


def raise_and_describe() -> str | None:
    empty: dict[str, int] = {}
    try:
        empty["missing"]
    except KeyError as error:
        return f"{type(error).__name__}: {error!r} {error.args}"
    return None


def warm_up() -> str:
    out = {
        "match": [match_point(Point(0, 1)), match_point({"x": 2}), match_point([3, 4, 5])],
        "async": run(),
        "format": [
            "{:>5}|{:<3}|{:^5}|{:+.2f}|{!r}".format("a", "b", "c", 1.5, "d"),
            "%s=%d %.2f" % ("a", 1, 2.0),  # noqa: UP031 - printf-style formatting, as tools write it
            f"{1234.5:,.2f}",
            f"{0.25:.1%}",
            f"{12:08b}",
            f"{3.14159:e}",
            round(2.675, 2),
        ],
        "exc": raise_and_describe(),
        "bytes": [
            bytearray(b"ab").hex(),
            memoryview(b"ab").tobytes(),
            bytes.fromhex("6162"),
            int.from_bytes(b"\x01", "big"),
        ],
        "text": [
            "ß".casefold(),
            "x".encode("idna"),
            "é".encode("utf-16"),
            "é".encode("latin-1").decode("cp1252"),
            "x".encode("utf-8-sig"),
            "\\u00e9".encode().decode("unicode_escape"),  # noqa: UP012 - str.encode, then the codec
        ],
        "sorted": sorted([Point(2), Point(1)], key=lambda point: point.x),
    }
    print(out)
    return repr(out)
