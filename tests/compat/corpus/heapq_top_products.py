# args: {"sales": {"tee": 120, "cap": 45, "mug": 300, "pen": 12, "bag": 88}, "n": 3}
import heapq
from collections import Counter


def heapq_top_products(sales: dict, n: int = 3) -> dict:
    """Best sellers."""
    counts = Counter(sales)
    top = heapq.nlargest(n, sales.items(), key=lambda kv: kv[1])
    queue = [(-qty, name) for name, qty in sales.items()]
    heapq.heapify(queue)
    first = heapq.heappop(queue)
    return {
        "top": [name for name, _ in top],
        "most_common": counts.most_common(2),
        "first": first[1],
        "least": heapq.nsmallest(1, sales, key=sales.get),
    }
