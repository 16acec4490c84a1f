# args: {"start": "2024-02-27", "end": "2024-03-02"}
from datetime import date, timedelta


def days_until(start: str, end: str) -> dict:
    """Count days and business days between two dates."""
    a = date.fromisoformat(start)
    b = date.fromisoformat(end)
    business = 0
    day = a
    while day < b:
        if day.weekday() < 5:
            business += 1
        day += timedelta(days=1)
    return {"days": (b - a).days, "business_days": business, "end_weekday": b.strftime("%A")}
