# args: {"title": "Checkout is DOWN", "customer_tier": "gold"}
from enum import Enum, IntEnum


class Priority(IntEnum):
    LOW = 1
    NORMAL = 2
    HIGH = 3
    URGENT = 4


class Tier(str, Enum):
    FREE = "free"
    SILVER = "silver"
    GOLD = "gold"

    @classmethod
    def _missing_(cls, value):
        return cls.FREE


def enum_ticket_priority(title: str, customer_tier: str) -> dict:
    """Triage a support ticket."""
    tier = Tier(customer_tier)
    priority = Priority.NORMAL
    if "down" in title.lower():
        priority = Priority.URGENT
    elif tier is Tier.GOLD:
        priority = Priority(priority + 1)
    unknown = Tier("platinum")
    return {
        "priority": priority.name,
        "level": int(priority),
        "tier": tier.value,
        "fallback": unknown._value_,
        "names": [p._name_ for p in Priority],
    }
