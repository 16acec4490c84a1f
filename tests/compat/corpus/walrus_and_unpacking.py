# args: {"lines": ["name=Ana", "bad line", "age=34", "city = Porto", ""]}
import re


def walrus_and_unpacking(lines: list[str]) -> dict:
    """Parse key=value lines."""
    parsed = {}
    skipped = 0
    for line in lines:
        if m := re.match(r"\s*(\w+)\s*=\s*(.+)", line):
            key, value = m.groups()
            parsed[key] = value.strip()
        else:
            skipped += 1
    first, *middle, last = list(parsed)
    (a, b), c = (1, 2), 3
    return {
        "parsed": parsed,
        "skipped": skipped,
        "first": first,
        "middle": middle,
        "last": last,
        "abc": [a, b, c],
    }
