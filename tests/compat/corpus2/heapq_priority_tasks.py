# args: {"tasks": [["email", 3], ["deploy", 1], ["review", 2], ["lunch", 5], ["hotfix", 1]]}
import heapq
from dataclasses import dataclass, field
from itertools import count


@dataclass(order=True)
class Job:
    priority: int
    seq: int
    name: str = field(compare=False)


def heapq_priority_tasks(tasks: list) -> dict:
    """A priority queue of dataclasses with stable ordering."""
    counter = count()
    heap = []
    for name, priority in tasks:
        heapq.heappush(heap, Job(priority, next(counter), name))
    order = [heapq.heappop(heap).name for _ in range(3)]
    rest = [job.name for job in heapq.nsmallest(10, heap)]
    numbers = [9, 4, 7, 1, 8]
    heapq.heapify(numbers)
    replaced = heapq.heapreplace(numbers, 5)
    pushed_popped = heapq.heappushpop(numbers, 0)
    return {
        "order": order,
        "rest": rest,
        "largest": heapq.nlargest(2, tasks, key=lambda t: t[1]),
        "merged": list(heapq.merge([1, 4, 9], [2, 3, 10], [5])),
        "replaced": replaced,
        "pushed_popped": pushed_popped,
        "heap_min": numbers[0],
    }
