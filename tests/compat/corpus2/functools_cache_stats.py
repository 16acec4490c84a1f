# args: {"n": 30}
from functools import cache, lru_cache


@lru_cache(maxsize=32)
def fib(n: int) -> int:
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@cache
def ways(total: int, coins: tuple) -> int:
    if total == 0:
        return 1
    if total < 0 or not coins:
        return 0
    return ways(total - coins[0], coins) + ways(total, coins[1:])


def functools_cache_stats(n: int) -> dict:
    """Memoized recursion and cache statistics."""
    fib.cache_clear()
    value = fib(n)
    info = fib.cache_info()
    change = ways(100, (50, 25, 10, 5, 1))
    return {
        "fib": value,
        "hits": info.hits,
        "misses": info.misses,
        "maxsize": info.maxsize,
        "currsize": info.currsize,
        "info": str(info),
        "ways": change,
        "wrapped": fib.__wrapped__(10),
        "params": fib.cache_parameters(),
    }
