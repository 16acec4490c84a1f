# args: {"inputs": ["10", "0", "abc", "5"]}
trace = []


def divide(text: str) -> float:
    try:
        value = 100 / int(text)
    except ZeroDivisionError:
        trace.append(f"{text}: zero")
        return "inf"
    except (ValueError, TypeError) as error:
        trace.append(f"{text}: {type(error).__name__}")
        raise
    else:
        trace.append(f"{text}: ok")
        return value
    finally:
        trace.append(f"{text}: finally")


def finally_overrides():
    try:
        return "try"
    finally:
        trace.append("finally ran before return")


def nested_reraise():
    try:
        try:
            {}["k"]
        except KeyError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        return [str(outer), repr(outer.__cause__), outer.__suppress_context__]


def try_except_flow_order(inputs: list[str]) -> dict:
    """Order of try/except/else/finally, re-raising and chaining."""
    trace.clear()
    results = []
    for text in inputs:
        try:
            results.append(divide(text))
        except ValueError as error:
            results.append(f"error: {error}")
    for attempt in range(3):
        try:
            if attempt < 2:
                raise ConnectionError(f"attempt {attempt}")
        except ConnectionError:
            continue
        else:
            break
    return {
        "results": results,
        "trace": trace,
        "finally": finally_overrides(),
        "attempt": attempt,
        "chain": nested_reraise(),
    }
