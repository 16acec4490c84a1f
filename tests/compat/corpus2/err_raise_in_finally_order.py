# args: {}
def err_raise_in_finally_order() -> str:
    """Prints from finally before the error propagates."""
    try:
        print("working")
        raise PermissionError("not allowed to export")
    finally:
        print("cleanup done")
