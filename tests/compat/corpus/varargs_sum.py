# args: {"numbers": [1.5, 2, 3], "round_to": 1}
def varargs_sum(*numbers: float, round_to: int = 2) -> float:
    """Add any count of numbers.

    Args:
        numbers: The numbers to add.
        round_to: Decimal places.
    """
    return round(sum(numbers), round_to)
