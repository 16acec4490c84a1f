# args: {"codes": ["200", "404", "999"]}
from enum import Enum


class Status(Enum):
    OK = 200
    NOT_FOUND = 404
    ERROR = 500

    @property
    def label(self):
        return self.name.replace("_", " ").title()

    @classmethod
    def parse(cls, code):
        try:
            return cls(int(code))
        except ValueError:
            return None


def enum_lookup_by_value(codes: list[str]) -> dict:
    """Translate status codes."""
    found = {code: (s.label if (s := Status.parse(code)) else None) for code in codes}
    return {"found": found, "names": Status._member_names_, "known": 404 in Status._value2member_map_}
