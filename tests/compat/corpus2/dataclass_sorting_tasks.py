# args: {"tasks": [["write docs", 2, "2026-02-01"], ["fix bug", 1, "2026-01-20"], ["deploy", 1, "2026-01-15"], ["refactor", 3, "2026-03-01"]]}
from dataclasses import dataclass, field
from operator import attrgetter


@dataclass(order=True)
class Task:
    priority: int
    due: str
    title: str = field(compare=False)


def dataclass_sorting_tasks(tasks: list) -> dict:
    """Order tasks by priority then due date."""
    items = [Task(priority=p, due=d, title=t) for t, p, d in tasks]
    by_order = [t.title for t in sorted(items)]
    by_title = [t.title for t in sorted(items, key=attrgetter("title"))]
    by_due_desc = [t.title for t in sorted(items, key=lambda t: t.due, reverse=True)]
    return {
        "by_order": by_order,
        "by_title": by_title,
        "by_due_desc": by_due_desc,
        "first": min(items).title,
        "lt": items[1] < items[0],
        "eq_ignores_title": Task(1, "x", "a") == Task(1, "x", "b"),
    }
