# args: {"lines": ["id=7", "", "name = Ana", "junk", "age=31", "end", "after=1"]}
import re

PAIR = re.compile(r"\s*(\w+)\s*=\s*(.+)")


def walrus_patterns(lines: list[str]) -> dict:
    """Assignment expressions in loops, conditions and comprehensions."""
    data = {}
    skipped = 0
    index = 0
    while (line := lines[index]) != "end":
        index += 1
        if not line:
            continue
        if m := PAIR.match(line):
            data[m[1]] = m[2]
        else:
            skipped += 1
    values = [y for x in [3, 8, 12, 1] if (y := x * 2) > 10]
    total = 0
    running = [total := total + v for v in [1, 2, 3]]
    if (n := len(data)) > 2:
        summary = f"{n} pairs"
    else:
        summary = "few"
    return {"data": data, "skipped": skipped, "values": values, "running": running, "total": total, "summary": summary, "last_y": y}
