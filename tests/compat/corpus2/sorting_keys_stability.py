# args: {"employees": [{"name": "ana", "dept": "eng", "salary": 120, "start": "2019-03-01"}, {"name": "Bo", "dept": "ops", "salary": 90, "start": "2021-06-15"}, {"name": "cy", "dept": "eng", "salary": 120, "start": "2018-01-10"}, {"name": "Di", "dept": "ops", "salary": 95, "start": "2020-09-30"}]}
def sorting_keys_stability(employees: list[dict]) -> dict:
    """Sorting with key functions, multiple keys, stability and min/max."""
    by_salary_desc_name = sorted(employees, key=lambda e: (-e["salary"], e["name"].lower()))
    stable = sorted(sorted(employees, key=lambda e: e["start"]), key=lambda e: e["dept"])
    case_sensitive = sorted(e["name"] for e in employees)
    case_insensitive = sorted((e["name"] for e in employees), key=str.casefold)
    in_place = list(employees)
    in_place.sort(key=lambda e: e["start"], reverse=True)
    return {
        "by_salary": [e["name"] for e in by_salary_desc_name],
        "stable": [e["name"] for e in stable],
        "case_sensitive": case_sensitive,
        "case_insensitive": case_insensitive,
        "newest": in_place[0]["name"],
        "richest": max(employees, key=lambda e: e["salary"])["name"],
        "first_of_ties": min(employees, key=lambda e: -e["salary"])["name"],
        "empty_default": max([], default="none"),
        "sorted_dict": dict(sorted({"b": 2, "a": 3, "c": 1}.items(), key=lambda kv: kv[1])),
        "reversed_sorted": sorted([3, 1, 2], reverse=True),
        "tuple_sort": sorted([(2, "b"), (1, "z"), (2, "a")]),
    }
