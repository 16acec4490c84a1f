# args: {"orders": [["apple", "pear", "apple"], ["pear", "kiwi"], ["apple", "kiwi", "kiwi", "fig"]]}
from collections import Counter


def counter_arithmetic(orders: list[list[str]]) -> dict:
    """Counter's arithmetic and ranking."""
    totals = Counter()
    for order in orders:
        totals.update(order)
    first, last = Counter(orders[0]), Counter(orders[-1])
    stock = Counter(apple=2, pear=5, kiwi=1)
    stock.subtract(totals)
    return {
        "most_common": totals.most_common(2),
        "all_ranked": totals.most_common(),
        "least": totals.most_common()[:-3:-1],
        "add": dict(first + last),
        "sub": dict(first - last),
        "and": dict(first & last),
        "or": dict(first | last),
        "elements": sorted(first.elements()),
        "total": totals.total(),
        "missing": totals["banana"],
        "stock": dict(stock),
        "positive": dict(+stock),
        "from_string": Counter("mississippi").most_common(3),
        "eq": Counter("ab") == Counter("ba"),
        "repr": repr(Counter("aab")),
    }
