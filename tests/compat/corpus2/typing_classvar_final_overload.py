# args: {"values": [1, "2", 3.5]}
from dataclasses import dataclass, field, fields
from typing import ClassVar, Final, overload

MAX_ITEMS: Final = 3


@dataclass
class Config:
    registry: ClassVar[dict] = {}
    name: str
    limit: int = MAX_ITEMS
    tags: list[str] = field(default_factory=list)

    def __post_init__(self):
        Config.registry[self.name] = self


@overload
def double(value: int) -> int: ...
@overload
def double(value: str) -> str: ...
def double(value):
    return value * 2


def typing_classvar_final_overload(values: list) -> dict:
    """ClassVar fields, Final constants and overloads."""
    Config("a")
    Config("b", limit=5)
    return {
        "registry": sorted(Config.registry),
        "fields": [f.name for f in fields(Config)],
        "doubled": [double(v) for v in values],
        "final": MAX_ITEMS,
        "repr": repr(Config.registry["b"]),
    }
