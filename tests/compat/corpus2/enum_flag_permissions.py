# args: {"granted": ["READ", "WRITE"], "needed": "READ|EXECUTE"}
from enum import Flag, auto


class Perm(Flag):
    READ = auto()
    WRITE = auto()
    EXECUTE = auto()
    RW = READ | WRITE
    ALL = READ | WRITE | EXECUTE


def parse(text: str) -> Perm:
    value = Perm(0)
    for name in text.split("|"):
        value |= Perm[name.strip()]
    return value


def enum_flag_permissions(granted: list[str], needed: str) -> dict:
    """Check permissions stored as flags."""
    have = Perm(0)
    for name in granted:
        have |= Perm[name]
    want = parse(needed)
    missing = want & ~have
    return {
        "have": str(have),
        "have_repr": repr(have),
        "value": have.value,
        "ok": want in have,
        "missing": missing.name,
        "is_rw": have == Perm.RW,
        "members": [m.name for m in Perm],
        "iter_have": [m.name for m in have],
        "bool_empty": bool(Perm(0)),
        "all_value": Perm.ALL.value,
        "len": len(Perm.ALL),
    }
