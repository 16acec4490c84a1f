# args: {"items": []}
def err_stop_iteration_next(items: list) -> str:
    """next() on an empty iterator."""
    return next(iter(items))
