# args: {"start": "2026-12-22", "business_days": 5, "holidays": ["2026-12-25", "2027-01-01"]}
from datetime import date, timedelta


def business_days(start: str, business_days: int, holidays: list[str]) -> dict:
    """Add business days to a date, skipping weekends and holidays."""
    off = {date.fromisoformat(h) for h in holidays}
    day = date.fromisoformat(start)
    skipped = []
    remaining = business_days
    while remaining:
        day += timedelta(days=1)
        if day.weekday() >= 5 or day in off:
            skipped.append(day.strftime("%a %d"))
            continue
        remaining -= 1
    return {
        "due": day.isoformat(),
        "skipped": skipped,
        "week": day.isocalendar().week,
        "quarter": (day.month - 1) // 3 + 1,
        "month_end": (day.replace(day=1) + timedelta(days=32)).replace(day=1) - timedelta(days=1) == day,
        "ctime": day.ctime(),
    }
