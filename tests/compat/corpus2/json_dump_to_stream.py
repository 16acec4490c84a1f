# args: {"rows": [{"a": 1}, {"b": [1, 2]}]}
import io
import json


def json_dump_to_stream(rows: list[dict]) -> dict:
    """json.dump and json.load with in-memory files."""
    buffer = io.StringIO()
    json.dump(rows, buffer, indent=1)
    buffer.seek(0)
    loaded = json.load(buffer)
    lines = io.StringIO()
    for row in rows:
        lines.write(json.dumps(row) + "\n")
    return {"text": buffer.getvalue(), "loaded": loaded, "lines": lines.getvalue().splitlines()}
