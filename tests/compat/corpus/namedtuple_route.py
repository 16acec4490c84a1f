# args: {"stops": [["Lisbon", 0], ["Porto", 313], ["Braga", 55]]}
from typing import NamedTuple
from collections import namedtuple

Leg = namedtuple("Leg", "origin destination km")


class Stop(NamedTuple):
    city: str
    km_from_previous: int = 0


def namedtuple_route(stops: list) -> dict:
    """Summarize a route."""
    route = [Stop._make(s) for s in stops]
    legs = [Leg(a.city, b.city, b.km_from_previous) for a, b in zip(route, route[1:])]
    first = route[0]._replace(city=route[0].city.upper())
    return {
        "legs": [leg._asdict() for leg in legs],
        "fields": list(Stop._fields),
        "defaults": Stop._field_defaults,
        "first": first._asdict(),
        "total_km": sum(leg.km for leg in legs),
    }
