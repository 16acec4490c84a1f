# args: {"epoch": 1767225600}
import time


def time_module_utc(epoch: int) -> dict:
    """The time module's UTC helpers."""
    parts = time.gmtime(epoch)
    return {
        "struct": [parts.tm_year, parts.tm_mon, parts.tm_mday, parts.tm_hour, parts.tm_wday, parts.tm_yday],
        "strftime": time.strftime("%Y-%m-%dT%H:%M:%SZ", parts),
        "asctime": time.asctime(parts),
        "strptime": list(time.strptime("2026-02-03", "%Y-%m-%d"))[:6],
        "epoch_zero": time.strftime("%Y", time.gmtime(0)),
        "monotonic_type": type(time.monotonic()).__name__,
        "perf": time.perf_counter() >= 0,
        "ns_type": type(time.time_ns()).__name__,
    }
