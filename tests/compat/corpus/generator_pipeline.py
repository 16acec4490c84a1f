# args: {"log": ["INFO start", "ERROR disk full", "WARN slow", "ERROR timeout", "INFO done"]}
def parse(lines):
    for line in lines:
        level, _, message = line.partition(" ")
        yield level, message


def only(level, records):
    return ((lvl, msg) for lvl, msg in records if lvl == level)


def numbered(records, start=1):
    for number, record in enumerate(records, start):
        yield number, *record


def generator_pipeline(log: list[str]) -> dict:
    """Filter a log with a generator pipeline."""
    errors = list(numbered(only("ERROR", parse(log))))
    gen = parse(log)
    first = next(gen)
    rest = sum(1 for _ in gen)
    return {
        "errors": errors,
        "first": first,
        "rest": rest,
        "any_warn": any(l == "WARN" for l, _ in parse(log)),
    }
