# args: {"a": 3, "b": 4}
import functools


def logged(func):
    @functools.wraps(func)
    def inner(*args, **kwargs):
        result = func(*args, **kwargs)
        print(f"{func.__name__}{args} -> {result}")
        return result

    return inner


@logged
def hypotenuse(a, b):
    """Length of the hypotenuse."""
    return (a * a + b * b) ** 0.5


def wraps_logger(a: float, b: float) -> dict:
    """Compute with logging."""
    return {
        "value": hypotenuse(a, b),
        "name": hypotenuse.__name__,
        "doc": hypotenuse.__doc__,
        "qualname": hypotenuse.__qualname__,
    }
