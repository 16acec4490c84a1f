# args: {"date": "2026-12-03", "slot": "14:30", "party": 3}
# context: {"state": {"booked": {"2026-12-03": ["09:00", "14:30"]}, "max_party": 4}}
from datetime import date, datetime


def ces_book_appointment(date: str, slot: str, party: int = 1) -> dict:
    """Book an appointment slot.

    Args:
        date: The day, as YYYY-MM-DD.
        slot: The time, as HH:MM.
        party: How many people come.
    """
    when = datetime.strptime(f"{date} {slot}", "%Y-%m-%d %H:%M")
    booked = context.state.setdefault("booked", {}).setdefault(date, [])
    if party > context.state.get("max_party", 2):
        return {"ok": False, "reason": f"at most {context.state['max_party']} people"}
    if slot in booked:
        free = [f"{h:02d}:{m:02d}" for h in range(9, 17) for m in (0, 30) if f"{h:02d}:{m:02d}" not in booked]
        return {"ok": False, "reason": "taken", "next_free": free[:3], "weekday": when.strftime("%A")}
    booked.append(slot)
    booked.sort()
    return {"ok": True, "when": when.isoformat()}
