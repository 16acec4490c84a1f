# args: {"granted": ["READ", "WRITE"]}
from enum import Enum, Flag, auto


class Permission(Flag):
    READ = auto()
    WRITE = auto()
    DELETE = auto()
    ADMIN = READ | WRITE | DELETE


class Color(Enum):
    RED = auto()
    GREEN = auto()


def enum_auto_flags(granted: list[str]) -> dict:
    """Combine permission flags."""
    perms = Permission(0)
    for name in granted:
        perms |= Permission[name]
    return {
        "value": perms.value,
        "can_write": Permission.WRITE in perms,
        "is_admin": perms == Permission.ADMIN,
        "colors": {c.name: c.value for c in Color},
        "members": list(Permission.__members__),
    }
