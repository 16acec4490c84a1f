# args: {"tasks": [["write docs", 2, "2024-05-03"], ["fix bug", 1, "2024-05-01"], ["deploy", 1, "2024-04-30"]]}
from dataclasses import dataclass, field, replace, astuple


@dataclass(order=True)
class Task:
    priority: int
    due: str
    title: str = field(compare=False)
    done: bool = field(default=False, compare=False)


def dataclass_ordering(tasks: list) -> dict:
    """Order tasks by priority and due date."""
    items = sorted(Task(p, d, t) for t, p, d in tasks)
    finished = replace(items[0], done=True)
    return {"order": [t.title for t in items], "first": astuple(finished), "repr": repr(items[-1])}
