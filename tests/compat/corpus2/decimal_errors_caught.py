# args: {"inputs": ["12.50", "abc", "1e3", "", "  7 ", "1/2"]}
from decimal import Decimal, DivisionByZero, InvalidOperation, localcontext


def decimal_errors_caught(inputs: list[str]) -> dict:
    """Validate user-entered amounts."""
    parsed, rejected = {}, []
    for text in inputs:
        try:
            parsed[text] = str(Decimal(text.strip()))
        except InvalidOperation as error:
            rejected.append([text, type(error).__name__])
    with localcontext() as ctx:
        ctx.traps[DivisionByZero] = True
        try:
            Decimal(1) / Decimal(0)
            division = "no error"
        except DivisionByZero as error:
            division = f"{type(error).__name__} is ZeroDivisionError: {isinstance(error, ZeroDivisionError)}"
        ctx.traps[DivisionByZero] = False
        infinite = str(Decimal(1) / Decimal(0))
    return {"parsed": parsed, "rejected": rejected, "division": division, "infinite": infinite}
