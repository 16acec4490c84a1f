# args: {}
from datetime import date, datetime, timezone
from zoneinfo import ZoneInfo


def now_and_timezones_shapes() -> dict:
    """The current time, naive and aware: checked by shape."""
    now = datetime.now(timezone.utc)
    local = datetime.now(ZoneInfo("America/Sao_Paulo"))
    return {
        "aware": now.tzinfo is not None,
        "offset": str(local.utcoffset()),
        "today_type": type(date.today()).__name__,
        "zone_key": local.tzinfo.key,
        "naive_type": type(datetime.now()).__name__,
        "utcnow_naive": datetime.utcnow().tzinfo is None,
    }
