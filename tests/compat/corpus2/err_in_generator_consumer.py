# args: {"rows": ["1", "2", "x", "4"]}
def parse_rows(rows):
    for row in rows:
        yield int(row)


def err_in_generator_consumer(rows: list[str]) -> int:
    """An error raised inside a generator."""
    return sum(parse_rows(rows))
