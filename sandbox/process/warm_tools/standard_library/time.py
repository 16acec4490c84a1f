import time


def warm_up() -> str:
    return repr([time.strftime("%Y", time.strptime("2024", "%Y")), time.time() > 0, time.monotonic() > 0])
