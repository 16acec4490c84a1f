# args: {"rows": [["a", "1"], ["b", "x"], ["c"]]}
class RowError(Exception):
    """An error in one row of an import."""

    def __init__(self, row, column, message):
        super().__init__(row, column, message)
        self.row, self.column = row, column

    def __str__(self):
        row, column, message = self.args
        return f"row {row}, column {column}: {message}"


def exception_notes_and_args(rows: list) -> dict:
    """Custom __str__, args, add_note and __notes__."""
    problems = []
    for number, row in enumerate(rows, start=1):
        try:
            if len(row) != 2:
                raise RowError(number, len(row) + 1, "missing value")
            int(row[1])
        except ValueError as error:
            error.add_note(f"while reading row {number}")
            problems.append({"str": str(error), "notes": error.__notes__, "type": type(error).__name__})
        except RowError as error:
            problems.append({"str": str(error), "args": list(error.args), "repr": repr(error)})
    bare = Exception()
    return {
        "problems": problems,
        "bare": [str(bare), repr(bare), bare.args],
        "multi": str(KeyError("a", "b")),
        "key": str(KeyError("k")),
    }
