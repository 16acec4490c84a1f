# args: {"clicks": ["a", "b", "a", "a"]}
def make_counter():
    counts = {}
    total = 0

    def click(name):
        nonlocal total
        counts[name] = counts.get(name, 0) + 1
        total += 1
        return total

    def report():
        return dict(counts), total

    return click, report


def closure_counter(clicks: list[str]) -> dict:
    """Count clicks with a closure."""
    click, report = make_counter()
    seen = [click(c) for c in clicks]
    counts, total = report()
    return {"seen": seen, "counts": counts, "total": total}
