# args: {}
def err_multiline_message() -> None:
    """An error whose message has several lines and unicode."""
    raise ValueError("first line\nsecond line: café ☕")
