# args: {"fail_times": 2}
import functools

calls = []


def retry(times=3):
    def decorate(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(1, times + 1):
                try:
                    return func(*args, **kwargs)
                except ConnectionError as error:
                    print(f"{func.__name__} attempt {attempt} failed: {error}")
            raise RuntimeError(f"{func.__name__} gave up")

        return wrapper

    return decorate


@retry(times=4)
def flaky_fetch(fail_times):
    """Fetch something that fails a few times."""
    calls.append(1)
    if len(calls) <= fail_times:
        raise ConnectionError("timeout")
    return "payload"


def retry_decorator(fail_times: int) -> dict:
    """Call a flaky function with retries."""
    calls.clear()
    result = flaky_fetch(fail_times)
    return {"result": result, "calls": len(calls), "name": flaky_fetch.__name__, "doc": flaky_fetch.__doc__}
