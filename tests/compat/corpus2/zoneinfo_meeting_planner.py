# args: {"utc_time": "2026-03-29T08:30:00+00:00", "zones": ["Europe/Lisbon", "America/New_York", "Asia/Kolkata", "Australia/Sydney"]}
from datetime import datetime
from zoneinfo import ZoneInfo


def zoneinfo_meeting_planner(utc_time: str, zones: list[str]) -> list:
    """Show a meeting time in several time zones, with DST info."""
    moment = datetime.fromisoformat(utc_time)
    rows = []
    for name in zones:
        local = moment.astimezone(ZoneInfo(name))
        rows.append(
            {
                "zone": name,
                "local": local.strftime("%Y-%m-%d %H:%M %Z"),
                "offset": str(local.utcoffset()),
                "dst": bool(local.dst()),
                "iso": local.isoformat(),
                "key": local.tzinfo.key,
            }
        )
    return rows
