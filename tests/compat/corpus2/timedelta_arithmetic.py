# args: {"start": "2026-04-01T22:15:00", "end": "2026-04-03T06:05:30"}
from datetime import datetime, timedelta


def timedelta_arithmetic(start: str, end: str) -> dict:
    """Durations, shifts and rounding with timedelta."""
    a = datetime.fromisoformat(start)
    b = datetime.fromisoformat(end)
    span = b - a
    shift = timedelta(hours=8)
    shifts, rest = divmod(span, shift)
    rounded = timedelta(minutes=round(span / timedelta(minutes=15)) * 15)
    return {
        "span": str(span),
        "seconds": span.total_seconds(),
        "days_seconds": [span.days, span.seconds, span.microseconds],
        "shifts": shifts,
        "rest": str(rest),
        "rounded": str(rounded),
        "negative": str(a - b),
        "neg_parts": [(a - b).days, (a - b).seconds],
        "half": str(span / 2),
        "times": str(shift * 2.5),
        "floor_div": span // timedelta(hours=1),
        "repr": repr(timedelta(days=1, seconds=5)),
        "abs": str(abs(a - b)),
        "weeks": str(timedelta(weeks=1, days=-1)),
    }
