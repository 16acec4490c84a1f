# args: {"x": 2}
def err_name_error_typo(x: int) -> int:
    """A misspelt variable."""
    result = x * 2
    return reslt
