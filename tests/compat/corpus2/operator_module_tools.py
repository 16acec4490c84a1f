# args: {"people": [{"name": "Ana", "age": 31, "city": {"name": "Lisbon"}}, {"name": "Bo", "age": 25, "city": {"name": "Oslo"}}]}
import operator
from types import SimpleNamespace


def operator_module_tools(people: list[dict]) -> dict:
    """operator's getters and functions as keys and reducers."""
    objs = [SimpleNamespace(name=p["name"], age=p["age"], city=SimpleNamespace(name=p["city"]["name"])) for p in people]
    by_age = sorted(people, key=operator.itemgetter("age"))
    get_city = operator.attrgetter("city.name")
    name_age = operator.attrgetter("name", "age")
    upper = operator.methodcaller("upper")
    return {
        "by_age": [p["name"] for p in by_age],
        "cities": [get_city(o) for o in objs],
        "name_age": [name_age(o) for o in objs],
        "upper": [upper(p["name"]) for p in people],
        "multi_item": operator.itemgetter(0, -1)("abcdef"),
        "ops": [operator.add(2, 3), operator.mul(4, 5), operator.truediv(7, 2), operator.floordiv(7, 2), operator.mod(7, 3), operator.neg(5), operator.pow(2, 10)],
        "compare": [operator.lt(1, 2), operator.eq("a", "a"), operator.contains([1, 2], 2), operator.not_(0)],
        "index": operator.index(7),
        "concat": operator.concat([1], [2]),
        "ns_repr": repr(objs[0].city),
    }
