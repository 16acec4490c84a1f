# args: {"count": 5}
def err_type_error_builtin(count: int) -> int:
    """len() of an int."""
    return len(count)
