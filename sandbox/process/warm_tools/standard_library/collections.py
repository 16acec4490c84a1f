import collections


def warm_up() -> str:
    counter = collections.Counter("abracadabra")
    Pair = collections.namedtuple("Pair", "a b")
    window = collections.deque([1, 2], maxlen=2)
    window.appendleft(0)
    return repr(
        [
            counter.most_common(2),
            counter.most_common(),
            collections.OrderedDict(a=1).popitem(),
            window,
            dict(collections.defaultdict(list, a=[1])),
            collections.ChainMap({"a": 1}, {"b": 2})["b"],
            Pair(1, 2)._asdict(),
        ]
    )
