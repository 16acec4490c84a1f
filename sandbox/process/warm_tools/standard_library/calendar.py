import calendar


def warm_up() -> str:
    return repr(
        [
            calendar.monthrange(2024, 2),
            calendar.month_name[1],
            calendar.day_abbr[0],
            calendar.isleap(2024),
            calendar.TextCalendar().formatmonth(2024, 1),
            calendar.monthcalendar(2024, 1)[0],
            calendar.weekday(2024, 1, 1),
        ]
    )
