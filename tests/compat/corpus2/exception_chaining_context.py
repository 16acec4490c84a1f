# args: {"record": {"id": "x1", "amount": "12,50"}}
class ImportFailed(Exception):
    def __init__(self, record_id, reason):
        super().__init__(f"record {record_id}: {reason}")
        self.record_id = record_id
        self.reason = reason


def parse_amount(text):
    try:
        return float(text)
    except ValueError as error:
        raise ImportFailed("?", "bad amount") from error


def import_record(record):
    try:
        return parse_amount(record["amount"])
    except ImportFailed as error:
        raise ImportFailed(record["id"], error.reason) from error.__cause__


def exception_chaining_context(record: dict) -> dict:
    """raise ... from, __cause__, __context__ and suppressed context."""
    try:
        import_record(record)
    except ImportFailed as error:
        cause = error.__cause__
        info = {
            "message": str(error),
            "args": list(error.args),
            "attrs": [error.record_id, error.reason],
            "cause": f"{type(cause).__name__}: {cause}",
            "context_type": type(error.__context__).__name__,
            "suppress": error.__suppress_context__,
        }
    try:
        try:
            1 / 0
        except ZeroDivisionError:
            raise KeyError("during handling")
    except KeyError as error:
        info["implicit_context"] = repr(error.__context__)
    try:
        raise ValueError("no context") from None
    except ValueError as error:
        info["from_none"] = [error.__cause__, error.__suppress_context__]
    return info
