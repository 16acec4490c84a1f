# args: {"sku": "P-1", "price": 9.5}
from dataclasses import KW_ONLY, dataclass, field


@dataclass(slots=True, kw_only=True)
class Options:
    gift: bool = False
    note: str = ""


@dataclass(slots=True)
class Line:
    sku: str
    price: float
    _: KW_ONLY
    qty: int = 1
    options: Options = field(default_factory=Options)

    def total(self) -> float:
        return round(self.price * self.qty, 2)


def dataclass_slots_kw_only(sku: str, price: float) -> dict:
    """Dataclasses with slots and keyword-only fields."""
    line = Line(sku, price, qty=3, options=Options(gift=True))
    try:
        Line(sku, price, 3)
        positional = "accepted"
    except TypeError as error:
        positional = str(error)
    try:
        line.colour = "red"
        slot_error = None
    except AttributeError as error:
        slot_error = str(error)
    return {
        "repr": repr(line),
        "total": line.total(),
        "positional": positional,
        "slot_error": slot_error,
        "has_dict": hasattr(line, "__dict__"),
    }
