# args: {"n": 50}
def countdown(n):
    if n == 0:
        raise OverflowError("reached zero")
    return countdown(n - 1)


def err_recursion_depth_plain(n: int) -> int:
    """An error raised deep in a recursion (not too deep)."""
    return countdown(n)
