# args: {"names": ["", "x"]}
def err_exception_group_uncaught(names: list[str]) -> list:
    """Several validation errors raised together."""
    problems = [ValueError(f"name {i} is empty") for i, n in enumerate(names) if not n]
    problems.append(TypeError("second problem"))
    raise ExceptionGroup("validation failed", problems)
