# args: {"n": 80}
from functools import cache


@cache
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def lru_cache_fibonacci(n: int) -> dict:
    """Fibonacci numbers with memoization."""
    return {"value": fib(n), "first_ten": [fib(i) for i in range(10)], "digits": len(str(fib(n)))}
