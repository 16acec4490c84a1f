# args: {"log": "2026-11-02 10:15:03 ERROR [payments] card declined (code=51)\n2026-11-02 10:16:44 WARN [auth] slow login\n2026-11-02 10:17:00 ERROR [payments] timeout (code=504)"}
import re

LINE = re.compile(
    r"""
    (?P<date>\d{4}-\d{2}-\d{2})\s+
    (?P<time>[\d:]{8})\s+
    (?P<level>[A-Z]+)\s+
    \[(?P<component>\w+)\]\s+
    (?P<message>.*?)
    (?:\s+\(code=(?P<code>\d+)\))?$
    """,
    re.VERBOSE | re.MULTILINE,
)


def regex_named_groups(log: str) -> dict:
    """Parse log lines into records and count errors per component."""
    records = [m.groupdict() for m in LINE.finditer(log)]
    errors = {}
    for record in records:
        if record["level"] == "ERROR":
            errors[record["component"]] = errors.get(record["component"], 0) + 1
    masked = re.sub(r"code=(\d+)", lambda m: "code=" + "#" * len(m.group(1)), log)
    return {
        "records": records,
        "errors": errors,
        "masked_tail": masked.splitlines()[-1],
        "groups": LINE.groups,
        "names": sorted(LINE.groupindex),
    }
