# args: {"start": "09:15", "end": "17:40"}
import time


def time_strptime_duration(start: str, end: str) -> dict:
    """Duration between two clock times."""
    a = time.strptime(start, "%H:%M")
    b = time.strptime(end, "%H:%M")
    minutes = (b.tm_hour * 60 + b.tm_min) - (a.tm_hour * 60 + a.tm_min)
    hours, rest = divmod(minutes, 60)
    return {"minutes": minutes, "text": f"{hours}h{rest:02d}m", "start_hour": a.tm_hour}
