import functools
import operator


@functools.lru_cache(maxsize=None)  # noqa: UP033 - lru_cache, as tools write it
def cached(n: int) -> int:
    return n


def wrapper_of(function):
    @functools.wraps(function)
    def inner(*args, **kwargs):
        return function(*args, **kwargs)

    return inner


@functools.total_ordering
class Version:
    def __init__(self, number: int) -> None:
        self.number = number

    def __eq__(self, other):
        return self.number == other.number

    def __lt__(self, other: "Version") -> bool:
        return self.number < other.number


def difference(a: int, b: int) -> int:
    return a - b


def warm_up() -> str:
    return repr(
        [
            functools.reduce(operator.mul, [1, 2, 3]),
            functools.partial(int, base=2)("10"),
            cached(3),
            wrapper_of(abs)(1),
            sorted([3, 1], key=functools.cmp_to_key(difference)),
            Version(1) <= Version(2),
        ]
    )
