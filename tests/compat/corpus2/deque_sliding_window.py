# args: {"values": [5, 1, 4, 2, 8, 7, 3], "window": 3}
from collections import deque


def deque_sliding_window(values: list[int], window: int) -> dict:
    """Moving averages, rotation and bounded history with deque."""
    recent = deque(maxlen=window)
    averages = []
    for v in values:
        recent.append(v)
        if len(recent) == window:
            averages.append(round(sum(recent) / window, 2))
    ring = deque("abcde")
    ring.rotate(2)
    rotated = "".join(ring)
    ring.rotate(-3)
    ring.appendleft("z")
    ring.extendleft(["y", "x"])
    popped = [ring.pop(), ring.popleft()]
    queue = deque()
    queue.extend([1, 2, 3])
    served = [queue.popleft() for _ in range(2)]
    return {
        "averages": averages,
        "last_window": list(recent),
        "maxlen": recent.maxlen,
        "rotated": rotated,
        "ring": list(ring),
        "popped": popped,
        "served": served,
        "repr": repr(deque([1, 2], maxlen=3)),
        "index": deque("xyz").index("z"),
        "count": deque([1, 1, 2]).count(1),
    }
