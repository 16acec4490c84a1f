# refused: __context__ is available when it is an exception the tool caught itself
import json


def library_exception_context() -> str:
    """What json.loads was handling when it raised."""
    try:
        json.loads("")
    except ValueError as error:
        return type(error.__context__).__name__
