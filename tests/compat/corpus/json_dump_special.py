# args: {"record": {"when": "2024-01-02", "tags": ["b", "a"], "price": "3.10"}}
import json
from datetime import date
from decimal import Decimal


class Encoder(json.JSONEncoder):
    def default(self, value):
        if isinstance(value, date):
            return value.isoformat()
        if isinstance(value, Decimal):
            return str(value)
        if isinstance(value, set):
            return sorted(value)
        return super().default(value)


def json_dump_special(record: dict) -> dict:
    """Serialize special values to JSON."""
    data = {
        "when": date.fromisoformat(record["when"]),
        "tags": set(record["tags"]),
        "price": Decimal(record["price"]),
    }
    text = json.dumps(data, cls=Encoder, sort_keys=True)
    try:
        json.dumps({"x": object()})
        failed = None
    except TypeError as error:
        failed = type(error).__name__
    return {"json": text, "failed": failed, "roundtrip": json.loads(text)}
