import datetime


def warm_up() -> str:
    moment = datetime.datetime.strptime("2024-02-03 04:05", "%Y-%m-%d %H:%M")
    return repr(
        [
            moment.isoformat(),
            datetime.datetime.fromisoformat("2024-01-01T00:00:00+00:00").isoformat(),
            datetime.date(2024, 1, 1).strftime("%A %d %B %Y %j %U %w %p %Z"),
            moment + datetime.timedelta(days=1),
            datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc).astimezone().tzinfo is not None,  # noqa: UP017 - timezone.utc, as tools write it
            datetime.date.fromisoformat("2024-01-02").weekday(),
            str(datetime.timedelta(hours=25)),
        ]
    )
