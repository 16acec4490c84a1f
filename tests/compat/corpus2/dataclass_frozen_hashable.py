# args: {"coords": [[38.72, -9.14], [41.15, -8.61], [38.72, -9.14]]}
from dataclasses import FrozenInstanceError, dataclass


@dataclass(frozen=True)
class Location:
    lat: float
    lon: float

    @property
    def hemisphere(self) -> str:
        return ("N" if self.lat >= 0 else "S") + ("E" if self.lon >= 0 else "W")


def dataclass_frozen_hashable(coords: list) -> dict:
    """Deduplicate locations with a frozen dataclass."""
    locations = [Location(*c) for c in coords]
    unique = list(dict.fromkeys(locations))
    try:
        locations[0].lat = 0
        frozen = False
    except FrozenInstanceError as error:
        frozen = str(error)
    return {
        "unique": [repr(loc) for loc in unique],
        "same_hash": hash(locations[0]) == hash(locations[2]),
        "frozen": frozen,
        "is_attribute_error": issubclass(FrozenInstanceError, AttributeError),
        "hemispheres": sorted({loc.hemisphere for loc in locations}),
        "as_key": {locations[0]: "lisbon"}[Location(38.72, -9.14)],
    }
