import heapq


def warm_up() -> str:
    heap = [5, 1, 3]
    heapq.heapify(heap)
    return repr(
        [
            heapq.heappop(heap),
            heapq.nlargest(2, [1, 3, 2]),
            heapq.nsmallest(1, [2, 1], key=abs),
            list(heapq.merge([1, 3], [2])),
        ]
    )
