import itertools


def warm_up() -> str:
    return repr(
        [
            [key for key, _ in itertools.groupby("aab")],
            list(itertools.combinations("abc", 2)),
            list(itertools.permutations("ab")),
            list(itertools.product("ab", repeat=2)),
            list(itertools.accumulate([1, 2])),
            list(itertools.islice(itertools.count(), 3)),
            list(itertools.zip_longest("a", "bc")),
            list(itertools.pairwise("abc")),
            list(itertools.starmap(pow, [(2, 3)])),
            list(itertools.chain.from_iterable([[1], [2]])),
        ]
    )
