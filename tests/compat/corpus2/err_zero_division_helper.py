# args: {"values": []}
def average(values):
    total = sum(values)
    return total / len(values)


def err_zero_division_helper(values: list[float]) -> float:
    """Average of no values."""
    return average(values)
