# args: {"utc_time": "2024-03-10T15:00:00", "zones": ["America/New_York", "Europe/Lisbon", "Asia/Tokyo"]}
from datetime import datetime, timezone
from zoneinfo import ZoneInfo


def timezone_meeting(utc_time: str, zones: list[str]) -> dict:
    """Show a meeting time in several time zones."""
    moment = datetime.fromisoformat(utc_time).replace(tzinfo=timezone.utc)
    return {zone: moment.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M %Z") for zone in zones}
