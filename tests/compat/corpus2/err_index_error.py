# args: {"items": ["a"]}
def err_index_error(items: list[str]) -> str:
    """The second item of a one-item list."""
    return items[1]
