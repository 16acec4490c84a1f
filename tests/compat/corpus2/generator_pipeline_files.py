# args: {"log": "GET /a 200 12\nPOST /b 500 340\nGET /a 200 8\nGET /c 404 3\nPOST /b 201 90"}
import io
from collections import Counter
from statistics import median


def lines(stream):
    for line in stream:
        line = line.strip()
        if line:
            yield line


def parse(rows):
    for row in rows:
        method, path, status, ms = row.split()
        yield {"method": method, "path": path, "status": int(status), "ms": int(ms)}


def only(records, predicate):
    return (r for r in records if predicate(r))


def generator_pipeline_files(log: str) -> dict:
    """A lazy pipeline over an in-memory log file."""
    records = list(parse(lines(io.StringIO(log))))
    errors = list(only(records, lambda r: r["status"] >= 400))
    by_path = Counter(r["path"] for r in records)
    return {
        "errors": [f"{r['method']} {r['path']} {r['status']}" for r in errors],
        "busiest": by_path.most_common(1)[0],
        "median_ms": median(r["ms"] for r in records),
        "slow": [r["path"] for r in records if r["ms"] > 50],
    }
