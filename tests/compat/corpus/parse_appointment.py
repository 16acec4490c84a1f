# args: {"text": "2024-05-17 14:45"}
from datetime import datetime, timedelta


def parse_appointment(text: str) -> dict:
    """Parse an appointment time and give its reminder time."""
    when = datetime.strptime(text, "%Y-%m-%d %H:%M")
    reminder = when - timedelta(hours=1, minutes=30)
    return {
        "iso": when.isoformat(),
        "reminder": reminder.strftime("%d/%m %H:%M"),
        "weekday": when.strftime("%a"),
    }
