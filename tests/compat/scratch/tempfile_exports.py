# args: {"rows": [["id", "name"], ["1", "Ana"], ["2", "Rui"]]}
import csv
import os
import tempfile


def tempfile_exports(rows: list) -> dict:
    """Export rows as CSV through the tempfile helpers."""
    result = {}
    with tempfile.NamedTemporaryFile("w+", suffix=".csv", newline="", delete=False) as handle:
        csv.writer(handle).writerows(rows)
        handle.seek(0)
        result["reread"] = handle.read().splitlines()
        name = handle.name
    result["suffix"] = os.path.splitext(name)[1]
    result["in_tempdir"] = os.path.dirname(name) == tempfile.gettempdir()
    with open(name, newline="") as handle:
        result["rows"] = list(csv.reader(handle))
    os.unlink(name)
    with tempfile.NamedTemporaryFile() as handle:
        handle.write(b"spam")
        handle.flush()
        handle.seek(0)
        result["binary"] = handle.read().decode()
        auto = handle.name
    result["auto_removed"] = not os.path.exists(auto)
    fd, path = tempfile.mkstemp(prefix="job-", suffix=".log")
    os.write(fd, b"line 1\n")
    os.close(fd)
    with open(path, "rb") as handle:
        result["mkstemp"] = [handle.read().decode(), os.path.basename(path).startswith("job-")]
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND), "w") as handle:
        handle.write("line 2\n")
    result["fdopen"] = open(path).read().splitlines()
    folder = tempfile.mkdtemp(prefix="work-")
    result["mkdtemp"] = [os.path.isdir(folder), os.listdir(folder)]
    with tempfile.TemporaryDirectory() as scratch:
        with open(os.path.join(scratch, "a.txt"), "w") as handle:
            handle.write("a")
        result["inside"] = os.listdir(scratch)
    result["cleaned"] = os.path.exists(scratch)
    return result
