# args: {"stamps": ["2026-07-01T12:00:00Z", "2026-07-01 12:00:00.250+02:00", "2026-07-01"]}
from datetime import date, datetime, timezone, timedelta


def datetime_iso_roundtrip(stamps: list[str]) -> dict:
    """Parse ISO timestamps from different systems and normalize them to UTC."""
    out = []
    for stamp in stamps:
        try:
            value = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError as error:
            out.append(f"bad: {error}")
            continue
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        utc = value.astimezone(timezone.utc)
        out.append([utc.isoformat(timespec="milliseconds"), utc.timestamp(), utc.weekday()])
    fixed = timezone(timedelta(hours=-3, minutes=-30), "NST")
    local = datetime(2026, 1, 5, 9, 0, tzinfo=fixed)
    return {
        "normalized": out,
        "fixed_zone": [local.tzname(), str(local.utcoffset()), local.isoformat(sep=" ")],
        "from_ts": datetime.fromtimestamp(1_800_000_000, tz=timezone.utc).isoformat(),
        "date_iso": date.fromisoformat("2026-02-28").isoformat(),
        "isocal": list(date(2026, 12, 31).isocalendar()),
        "ordinal": date(2026, 1, 1).toordinal(),
        "min_max": [str(date.min), str(datetime.max)],
        "compare": datetime(2026, 1, 1, tzinfo=timezone.utc) < datetime(2026, 1, 1, 1, tzinfo=fixed),
    }
