# args: {"year": 2028, "month": 2}
import calendar


def calendar_helpers(year: int, month: int) -> dict:
    """Calendar facts for a month."""
    first_weekday, days = calendar.monthrange(year, month)
    cal = calendar.Calendar(firstweekday=calendar.SUNDAY)
    weeks = cal.monthdayscalendar(year, month)
    return {
        "days": days,
        "first": calendar.day_name[first_weekday],
        "leap": calendar.isleap(year),
        "leapdays": calendar.leapdays(2000, 2030),
        "weekday": calendar.weekday(year, month, 29 if days == 29 else 28),
        "month_abbr": [calendar.month_abbr[m] for m in range(1, 13)][:4],
        "weeks": len(weeks),
        "first_week": weeks[0],
        "text": calendar.month(year, month),
        "sundays": sum(1 for week in weeks if week[0]),
        "timegm": calendar.timegm((2026, 1, 1, 0, 0, 0, 0, 0, 0)),
        "header": calendar.weekheader(2),
        "mondays": [d.day for d in cal.itermonthdates(year, month) if d.month == month and d.weekday() == 0],
    }
