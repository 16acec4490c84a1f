# args: {"events": ["login", "view", "view", "purchase", "logout"]}
TOTAL_EVENTS = 0
SEEN = {}


def record(event):
    global TOTAL_EVENTS
    TOTAL_EVENTS += 1
    SEEN[event] = SEEN.get(event, 0) + 1


def make_counter(start=0):
    count = start

    def increment(step=1):
        nonlocal count
        count += step
        return count

    def reset():
        nonlocal count
        count = start

    return increment, reset


def global_nonlocal_state(events: list[str]) -> dict:
    """Module globals changed with global; closures with nonlocal."""
    global TOTAL_EVENTS
    TOTAL_EVENTS = 0
    SEEN.clear()
    for event in events:
        record(event)
    inc, reset = make_counter(10)
    values = [inc(), inc(5)]
    reset()
    values.append(inc())
    return {"total": TOTAL_EVENTS, "seen": SEEN, "values": values, "names": [inc.__name__, reset.__qualname__]}
