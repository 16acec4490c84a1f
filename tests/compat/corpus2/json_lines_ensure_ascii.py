# args: {"records": [{"city": "São Paulo", "emoji": "🌧", "temp": -2.5}, {"city": "Zürich", "emoji": "☀", "temp": 18}]}
import json


def json_lines_ensure_ascii(records: list[dict]) -> dict:
    """Write JSON Lines in ASCII and UTF-8 and read them back."""
    ascii_lines = "\n".join(json.dumps(r) for r in records)
    utf8_lines = "\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    back = [json.loads(line) for line in ascii_lines.splitlines()]
    print(utf8_lines)
    return {
        "ascii": ascii_lines,
        "utf8_bytes": len(utf8_lines.encode("utf-8")),
        "roundtrip": back == records,
        "bytes_input": json.loads(b'{"x": "\\u00e9"}'),
    }
