import bisect


def warm_up() -> str:
    values = [1, 3]
    bisect.insort(values, 2)
    return repr([bisect.bisect_left(values, 2), bisect.bisect_right(values, 2), values])
