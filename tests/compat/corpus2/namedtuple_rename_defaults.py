# args: {"header": ["id", "class", "2nd", "name", "id"]}
from collections import namedtuple


def namedtuple_rename_defaults(header: list[str]) -> dict:
    """namedtuple with rename=True and defaults, from a CSV header."""
    Row = namedtuple("Row", header, rename=True, defaults=[None, None])
    row = Row(1, "x", "y")
    return {"fields": list(Row._fields), "row": row._asdict(), "defaults": Row._field_defaults, "repr": repr(row)}
