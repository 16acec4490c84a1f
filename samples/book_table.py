"""A restaurant booking of our own that keeps a draft in the session across turns."""

from dataclasses import asdict, dataclass
from typing import Optional


@dataclass
class Draft:
    date: Optional[str] = None
    time: Optional[str] = None
    party_size: Optional[int] = None

    def missing(self) -> list:
        return [name for name, value in asdict(self).items() if value is None]


def book_table(
    date: Optional[str] = None,
    time: Optional[str] = None,
    party_size: Optional[int] = None,
    confirm: bool = False,
) -> dict:
    """Collects the details of a table booking over several turns and confirms it.

    Call it with whatever the user has given so far; it remembers earlier answers.
    Call it with confirm=true once the user agrees to the summary.

    Args:
        date: The day of the booking, as YYYY-MM-DD.
        time: The time of the booking, as HH:MM (24-hour clock).
        party_size: How many people, from 1 to 12.
        confirm: True when the user has confirmed the summary.

    Returns:
        What is still missing, the summary to confirm, or the confirmed booking.
    """
    draft = Draft(**context.state.get("booking_draft", {}))
    if date is not None:
        draft.date = date
    if time is not None:
        draft.time = time
    if party_size is not None:
        if not 1 <= party_size <= 12:
            return {"status": "invalid", "message": "Parties of 1 to 12 people only."}
        draft.party_size = party_size
    missing = draft.missing()
    if missing:
        context.state["booking_draft"] = asdict(draft)
        return {"status": "incomplete", "missing": missing}
    if not confirm:
        context.state["booking_draft"] = asdict(draft)
        return {"status": "confirm", "summary": f"A table for {draft.party_size} on {draft.date} at {draft.time}."}
    bookings = context.state.get("bookings", [])
    booking = {"reference": f"BK-{len(bookings) + 1:04d}", **asdict(draft)}
    context.state["bookings"] = bookings + [booking]
    del context.state["booking_draft"]
    print(f"booked {booking['reference']}")
    return {"status": "booked", "booking": booking}
