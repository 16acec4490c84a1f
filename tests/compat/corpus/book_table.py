# args: {"party_size": 4, "time": "19:30", "name": "Ana"}
# context: {"state": {"bookings": [{"time": "19:30", "party_size": 6}]}}
CAPACITY = 12


def book_table(party_size: int, time: str, name: str) -> dict:
    """Book a table at the restaurant.

    Args:
        party_size: Number of guests.
        time: Time slot as HH:MM.
        name: Name for the booking.
    """
    bookings = context.state.get("bookings", [])
    taken = sum(b["party_size"] for b in bookings if b["time"] == time)
    if taken + party_size > CAPACITY:
        return {"ok": False, "reason": f"only {CAPACITY - taken} seats left at {time}"}
    booking = {"time": time, "party_size": party_size, "name": name}
    bookings.append(booking)
    context.state["bookings"] = bookings
    return {"ok": True, "booking": booking, "seats_left": CAPACITY - taken - party_size}
