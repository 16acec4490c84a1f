# args: {"requests": ["a", "b", "c", "a", "d", "b", "e"], "capacity": 3}
from collections import ChainMap, OrderedDict


class LRU:
    def __init__(self, capacity):
        self.capacity = capacity
        self.data = OrderedDict()
        self.evicted = []

    def get(self, key):
        if key in self.data:
            self.data.move_to_end(key)
            return True
        self.data[key] = key.upper()
        if len(self.data) > self.capacity:
            self.evicted.append(self.data.popitem(last=False)[0])
        return False


def ordereddict_lru_chainmap(requests: list[str], capacity: int) -> dict:
    """An LRU cache with OrderedDict; layered config with ChainMap."""
    cache = LRU(capacity)
    hits = [cache.get(r) for r in requests]
    defaults = {"theme": "light", "lang": "en", "size": 12}
    user = {"theme": "dark"}
    session = {"size": 14}
    config = ChainMap(session, user, defaults)
    child = config.new_child({"lang": "pt"})
    child["extra"] = True
    od = OrderedDict.fromkeys("abc")
    od.move_to_end("a", last=False)
    return {
        "hits": hits,
        "order": list(cache.data),
        "evicted": cache.evicted,
        "config": dict(config),
        "child": {k: child[k] for k in sorted(child)},
        "maps": len(child.maps),
        "first_map": child.maps[0],
        "parents": dict(child.parents) == dict(config),
        "od_eq_order": [OrderedDict(a=1, b=2) == OrderedDict(b=2, a=1), dict(a=1, b=2) == dict(b=2, a=1)],
        "od_keys": list(od),
        "od_repr": repr(OrderedDict(x=1)),
    }
