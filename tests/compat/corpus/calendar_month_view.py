# args: {"year": 2024, "month": 2}
import calendar


def calendar_month_view(year: int, month: int) -> dict:
    """Describe a month."""
    first_weekday, days = calendar.monthrange(year, month)
    weeks = calendar.monthcalendar(year, month)
    return {
        "name": calendar.month_name[month],
        "days": days,
        "starts_on": calendar.day_name[first_weekday],
        "leap": calendar.isleap(year),
        "weekends": sum(1 for week in weeks for i in (5, 6) if week[i]),
        "text": calendar.TextCalendar(calendar.SUNDAY).formatmonth(year, month).splitlines()[:3],
    }
