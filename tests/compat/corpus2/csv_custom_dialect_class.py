# args: {"rows": [["a", "b c"], ["1", "x|y"]]}
import csv
import io


class Pipes(csv.Dialect):
    delimiter = "|"
    quotechar = "'"
    escapechar = "\\"
    doublequote = False
    skipinitialspace = True
    lineterminator = "\n"
    quoting = csv.QUOTE_MINIMAL


def csv_custom_dialect_class(rows: list) -> dict:
    """A csv.Dialect subclass used for writing and reading."""
    out = io.StringIO()
    csv.writer(out, dialect=Pipes).writerows(rows)
    back = list(csv.reader(io.StringIO(out.getvalue()), dialect=Pipes))
    return {"text": out.getvalue(), "back": back, "same": back == rows}
