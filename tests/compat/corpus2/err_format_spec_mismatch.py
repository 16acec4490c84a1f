# args: {"count": "7"}
def err_format_spec_mismatch(count: str) -> str:
    """A format spec for ints applied to a string."""
    return f"{count:03d} items"
