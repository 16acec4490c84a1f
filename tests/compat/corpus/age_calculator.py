# args: {"birthday": "1990-02-28", "today": "2024-02-27"}
from datetime import date


def age_calculator(birthday: str, today: str) -> dict:
    """Age in years and days until the next birthday."""
    born, now = date.fromisoformat(birthday), date.fromisoformat(today)
    age = now.year - born.year - ((now.month, now.day) < (born.month, born.day))
    next_birthday = born.replace(year=now.year)
    if next_birthday < now:
        next_birthday = next_birthday.replace(year=now.year + 1)
    return {"age": age, "days_to_birthday": (next_birthday - now).days, "weekday_born": born.strftime("%A")}
