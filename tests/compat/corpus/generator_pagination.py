# args: {"total": 23, "page_size": 5}
def pages(total, size):
    start = 0
    while start < total:
        end = min(start + size, total)
        yield list(range(start, end))
        start = end


def generator_pagination(total: int, page_size: int) -> dict:
    """Split results into pages."""
    all_pages = list(pages(total, page_size))
    gen = pages(total, page_size)
    first = next(gen)
    second = next(gen)
    return {
        "count": len(all_pages),
        "last": all_pages[-1],
        "first": first,
        "second": second,
        "sizes": [len(p) for p in all_pages],
    }
