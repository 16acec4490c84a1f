# args: {"check_in": "2024-07-10", "check_out": "2024-07-13", "guests": 2}
from datetime import date

ROOMS = [
    {"id": 101, "beds": 1, "rate": 90, "booked": [("2024-07-11", "2024-07-12")]},
    {"id": 102, "beds": 2, "rate": 120, "booked": []},
    {"id": 201, "beds": 3, "rate": 160, "booked": [("2024-07-01", "2024-07-10")]},
]


def _overlaps(a_start, a_end, b_start, b_end):
    return a_start < b_end and b_start < a_end


def hotel_availability(check_in: str, check_out: str, guests: int) -> list[dict]:
    """Find free rooms for a stay."""
    start, end = date.fromisoformat(check_in), date.fromisoformat(check_out)
    nights = (end - start).days
    free = []
    for room in ROOMS:
        if room["beds"] < guests:
            continue
        busy = any(
            _overlaps(start, end, date.fromisoformat(s), date.fromisoformat(e)) for s, e in room["booked"]
        )
        if not busy:
            free.append({"room": room["id"], "nights": nights, "price": nights * room["rate"]})
    return sorted(free, key=lambda r: r["price"])
