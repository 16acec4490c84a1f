# args: {"start": "2026-01-29", "end": "2026-03-02", "step_days": 7}
from datetime import date, timedelta
from typing import Iterator


def daterange(start: date, end: date, step: timedelta = timedelta(days=1)) -> Iterator[date]:
    current = start
    while current <= end:
        yield current
        current += step


def month_starts(start: date, end: date):
    year, month = start.year, start.month
    while (year, month) <= (end.year, end.month):
        yield date(year, month, 1)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)


def date_range_generator(start: str, end: str, step_days: int) -> dict:
    """Dates between two days, weekly, and the months touched."""
    a, b = date.fromisoformat(start), date.fromisoformat(end)
    weekly = [d.isoformat() for d in daterange(a, b, timedelta(days=step_days))]
    gen = daterange(a, b)
    first_two = [next(gen).day, next(gen).day]
    return {
        "weekly": weekly,
        "first_two": first_two,
        "months": [d.strftime("%b %Y") for d in month_starts(a, b)],
        "count": sum(1 for _ in daterange(a, b)),
    }
