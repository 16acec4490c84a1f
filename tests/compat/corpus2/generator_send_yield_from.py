# args: {"readings": [10, 12, 11, 30, 9]}
def averager():
    total, count, average = 0.0, 0, None
    while True:
        value = yield average
        if value is None:
            return {"count": count, "average": average}
        total += value
        count += 1
        average = total / count


def delegate(results):
    while True:
        results.append((yield from averager()))


def chunks(items, size):
    for start in range(0, len(items), size):
        yield items[start : start + size]


def flatten(nested):
    for item in nested:
        if isinstance(item, list):
            yield from flatten(item)
        else:
            yield item


def generator_send_yield_from(readings: list[int]) -> dict:
    """Coroutine-style generators with send and yield from."""
    avg = averager()
    next(avg)
    running = [round(avg.send(r), 2) for r in readings]
    try:
        avg.send(None)
    except StopIteration as stop:
        summary = stop.value
    results = []
    group = delegate(results)
    next(group)
    for r in readings[:2]:
        group.send(r)
    group.send(None)
    gen = (x * x for x in readings)
    first = next(gen)
    gen.close()
    return {
        "running": running,
        "summary": summary,
        "delegated": results,
        "chunks": list(chunks(readings, 2)),
        "flatten": list(flatten([1, [2, [3, [4]], 5]])),
        "first": first,
        "after_close": next(gen, "closed"),
    }
