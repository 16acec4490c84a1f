# args: {"events": ["PAID", "SHIPPED", "CANCELLED", "UNKNOWN"]}
from enum import Enum, auto


class Status(Enum):
    PAID = auto()
    SHIPPED = auto()
    CANCELLED = auto()

    @classmethod
    def _missing_(cls, value):
        if isinstance(value, str):
            return cls.__members__.get(value.upper())
        return None


def describe(status: Status) -> str:
    match status:
        case Status.PAID:
            return "payment received"
        case Status.SHIPPED | Status.CANCELLED as final:
            return f"final state {final.name.lower()}"


def enum_in_match_statement(events: list[str]) -> list:
    """Enum members in match statements, with _missing_ lookups."""
    out = []
    for event in events:
        try:
            out.append(describe(Status[event]))
        except KeyError as error:
            out.append(f"unknown {error}")
    out.append(Status("paid").name)
    return out
