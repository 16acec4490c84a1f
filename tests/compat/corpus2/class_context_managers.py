# args: {"steps": ["open", "fail", "close"]}
from contextlib import ExitStack, contextmanager, nullcontext, suppress

events = []


class Transaction:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        events.append(f"begin {self.name}")
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            events.append(f"commit {self.name}")
            return False
        events.append(f"rollback {self.name}: {exc_type.__name__}: {exc}")
        return issubclass(exc_type, KeyError)


@contextmanager
def tag(name):
    events.append(f"<{name}>")
    try:
        yield name.upper()
    finally:
        events.append(f"</{name}>")


def class_context_managers(steps: list[str]) -> list:
    """Context managers: classes, generators, suppress, ExitStack."""
    events.clear()
    with Transaction("t1") as tx:
        events.append(f"inside {tx.name}")
    with Transaction("t2"):
        raise KeyError("missing row")
    try:
        with Transaction("t3"):
            raise ValueError("bad value")
    except ValueError:
        events.append("t3 propagated")
    with tag("b") as upper, tag("i"):
        events.append(upper)
    with suppress(ZeroDivisionError):
        1 / 0
    with ExitStack() as stack:
        for step in steps:
            stack.callback(events.append, f"cleanup {step}")
        stack.enter_context(tag("stack"))
    with nullcontext(42) as value:
        events.append(str(value))
    return events
