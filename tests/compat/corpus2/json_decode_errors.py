# args: {"documents": ["{\"a\": 1}", "{\"a\": 1,}", "[1, 2", "{'single': 1}", "\"ok\"", "{\"a\": 1}\n{\"b\": 2}"]}
import json


def json_decode_errors(documents: list[str]) -> list:
    """Report where each malformed JSON document breaks."""
    report = []
    for doc in documents:
        try:
            value = json.loads(doc)
            report.append({"ok": value})
        except json.JSONDecodeError as error:
            report.append(
                {
                    "msg": error.msg,
                    "pos": error.pos,
                    "line": error.lineno,
                    "col": error.colno,
                    "str": str(error),
                    "is_value_error": isinstance(error, ValueError),
                }
            )
    return report
