# args: {"start": "2024-01-31", "months": 3}
# context: {"state": {"plan": "monthly"}}
import calendar
from datetime import date


def add_months(day, months):
    month_index = day.month - 1 + months
    year = day.year + month_index // 12
    month = month_index % 12 + 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, min(day.day, last))


def subscription_renewal(start: str, months: int) -> dict:
    """Renewal dates of a subscription."""
    first = date.fromisoformat(start)
    dates = [add_months(first, i) for i in range(1, months + 1)]
    context.state["next_renewal"] = dates[0].isoformat()
    return {"renewals": [d.isoformat() for d in dates], "plan": context.state["plan"]}
