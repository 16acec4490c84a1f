# args: {"n": 3}
import json
from datetime import date


class AppEncoder(json.JSONEncoder):
    def default(self, o):
        if isinstance(o, date):
            return {"$date": o.isoformat()}
        if hasattr(o, "to_json"):
            return o.to_json()
        return super().default(o)


class Task:
    def __init__(self, name, due):
        self.name, self.due = name, due

    def to_json(self):
        return {"name": self.name, "due": self.due}


def json_encoder_subclass(n: int) -> dict:
    """Encode custom objects with a JSONEncoder subclass."""
    tasks = [Task(f"task {i}", date(2026, 1, i + 1)) for i in range(n)]
    text = json.dumps({"tasks": tasks}, cls=AppEncoder)
    encoder = AppEncoder(indent=1, sort_keys=True)
    try:
        json.dumps(object(), cls=AppEncoder)
        error = None
    except TypeError as exc:
        error = str(exc)
    return {
        "text": text,
        "pretty": encoder.encode({"b": 1, "a": [date(2026, 2, 2)]}),
        "chunks": len(list(encoder.iterencode([1, 2, 3]))) > 1,
        "error": error,
    }
