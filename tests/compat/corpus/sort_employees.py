# args: {"employees": [{"name": "Cy", "dept": "ops", "salary": 50}, {"name": "Ana", "dept": "dev", "salary": 70}, {"name": "Bo", "dept": "dev", "salary": 70}]}
from operator import itemgetter


def sort_employees(employees: list[dict]) -> dict:
    """Sort employees several ways."""
    by_salary = sorted(employees, key=lambda e: (-e["salary"], e["name"]))
    by_dept = sorted(employees, key=itemgetter("dept", "name"))
    return {
        "by_salary": [e["name"] for e in by_salary],
        "by_dept": [e["name"] for e in by_dept],
        "reversed": [e["name"] for e in sorted(employees, key=itemgetter("name"), reverse=True)],
        "max": max(employees, key=itemgetter("salary"))["name"],
    }
