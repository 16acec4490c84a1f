# args: {"events": ["pay", "ship", "cancel", "deliver", "refund"]}
# context: {"state": {"order_status": "created"}}
from enum import Enum


class Status(Enum):
    CREATED = "created"
    PAID = "paid"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"


ALLOWED = {
    Status.CREATED: {"pay": Status.PAID, "cancel": Status.CANCELLED},
    Status.PAID: {"ship": Status.SHIPPED, "cancel": Status.CANCELLED},
    Status.SHIPPED: {"deliver": Status.DELIVERED},
}


class InvalidTransition(Exception):
    def __init__(self, status, event):
        super().__init__(f"cannot {event} when {status.value}")
        self.status = status


def order_state_machine(events: list[str]) -> dict:
    """Apply events to an order."""
    status = Status(context.state["order_status"])
    rejected = []
    for event in events:
        try:
            nxt = ALLOWED.get(status, {}).get(event)
            if nxt is None:
                raise InvalidTransition(status, event)
            status = nxt
        except InvalidTransition as error:
            rejected.append(str(error))
    context.state["order_status"] = status.value
    return {"final": status.name, "rejected": rejected}
