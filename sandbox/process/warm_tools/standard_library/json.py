import json


def warm_up() -> str:
    return repr(
        [
            json.dumps({"b": [1.5, None]}, indent=2, sort_keys=True, ensure_ascii=False, default=str),
            json.dumps({"a": 1}),
            json.loads('{"a": [1, 2.5, "\\u00e9", null, true]}'),
        ]
    )
