# args: {"headers": {"Content-Type": "json", "X-Trace": "abc"}}
from collections.abc import Mapping, MutableMapping
from collections import UserDict


class CaseInsensitive(MutableMapping):
    def __init__(self, data=()):
        self._store = {}
        self.update(data)

    def __getitem__(self, key):
        return self._store[key.lower()][1]

    def __setitem__(self, key, value):
        self._store[key.lower()] = (key, value)

    def __delitem__(self, key):
        del self._store[key.lower()]

    def __iter__(self):
        return (original for original, _ in self._store.values())

    def __len__(self):
        return len(self._store)

    def __repr__(self):
        return f"{type(self).__name__}({dict(self.items())})"


class Counts(UserDict):
    def __setitem__(self, key, value):
        super().__setitem__(key.upper(), value)


def custom_mapping_class(headers: dict) -> dict:
    """Custom mappings built on collections.abc and UserDict."""
    h = CaseInsensitive(headers)
    h["accept"] = "*/*"
    counts = Counts(a=1)
    counts["b"] = 2
    return {
        "get": [h["content-type"], h.get("x-TRACE"), h.get("missing", "-")],
        "keys": list(h),
        "len": len(h),
        "in": "ACCEPT" in h,
        "repr": repr(h),
        "is_mapping": isinstance(h, Mapping),
        "pop": h.pop("x-trace"),
        "after_pop": sorted(h.keys()),
        "counts": dict(counts),
        "counts_data": counts.data,
        "eq": h == {"Content-Type": "json", "accept": "*/*"},
    }
