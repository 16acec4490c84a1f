# args: {"fare_class": "Y", "days_before": 5, "bags": 2}
from dataclasses import dataclass


@dataclass(frozen=True)
class Fare:
    code: str
    base: int
    change_fee: int
    free_bags: int


FARES = {f.code: f for f in [Fare("Y", 400, 0, 2), Fare("M", 250, 75, 1), Fare("Q", 150, 150, 0)]}


def flight_fare_rules(fare_class: str, days_before: int, bags: int) -> dict:
    """Price a ticket change."""
    fare = FARES[fare_class]
    late = 50 if days_before < 7 else 0
    extra_bags = max(0, bags - fare.free_bags) * 35
    try:
        fare.base = 0
        mutable = True
    except Exception as error:
        mutable = type(error).__name__
    return {
        "fee": fare.change_fee + late,
        "bags": extra_bags,
        "total": fare.change_fee + late + extra_bags,
        "frozen": mutable,
    }
