# args: {"quantities": [1, 10, 10, 100, 1]}
from functools import lru_cache, partial, reduce
import operator


@lru_cache(maxsize=32)
def unit_price(quantity):
    if quantity >= 100:
        return 0.8
    if quantity >= 10:
        return 0.9
    return 1.0


def functools_pricing_cache(quantities: list[int]) -> dict:
    """Price with volume discounts."""
    prices = [round(q * unit_price(q), 2) for q in quantities]
    info = unit_price.cache_info()
    times_two = partial(operator.mul, 2)
    return {
        "prices": prices,
        "hits": info.hits,
        "misses": info.misses,
        "product": reduce(operator.mul, quantities),
        "doubled": list(map(times_two, quantities)),
    }
