# args: {"stamp": "2026-09-07T15:04:05.123456"}
from datetime import datetime


def strftime_directives(stamp: str) -> dict:
    """Render a timestamp with many strftime directives."""
    moment = datetime.fromisoformat(stamp)
    codes = ["%A", "%a", "%B", "%b", "%d", "%j", "%U", "%W", "%I", "%p", "%M", "%S", "%f", "%y", "%G-W%V-%u", "%%", "%H:%M", "%c", "%x", "%X"]
    parsed = datetime.strptime("Mon, 07 Sep 2026 03:04 PM", "%a, %d %b %Y %I:%M %p")
    return {
        "codes": {code: moment.strftime(code) for code in codes},
        "parsed": parsed.isoformat(),
        "same_minute": parsed.replace(second=5, microsecond=123456) == moment,
        "time": moment.time().isoformat(timespec="minutes"),
        "date": str(moment.date()),
        "timetuple": list(moment.timetuple())[:7],
    }
