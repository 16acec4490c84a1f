import contextlib


@contextlib.contextmanager
def managed():
    yield 1


def warm_up() -> str:
    with managed() as value, contextlib.suppress(KeyError):
        with contextlib.ExitStack() as stack:
            stack.callback(lambda: None)
        with contextlib.nullcontext(1):
            pass
    return repr(value)
