# args: {"scores": [7, 3, 9, 5, 1], "defaults": {"lang": "en", "tz": "UTC"}, "overrides": {"tz": "Europe/Lisbon"}}
def star_unpacking_merge(scores: list[int], defaults: dict, overrides: dict) -> dict:
    """Star unpacking in assignments, calls, literals and loops."""
    first, *middle, last = sorted(scores)
    head, *_ = scores
    *_, tail = scores
    (a, b), *rest = [(1, 2), (3, 4), (5, 6)]
    merged = {**defaults, **overrides, "source": "merge"}
    combined = [*scores[:2], *range(2), *"ab"]
    unique = {*scores, *[9, 10]}
    pairs = [(name, value) for name, value in merged.items()]
    swapped = dict((v, k) for k, v in [("x", 1), ("y", 2)])
    x, y = 1, 2
    x, y = y, x
    print(*scores, sep=" < ", end=" !\n")
    print("max:", max(*scores))
    nested = [[1, [2, 3]], [4, [5, 6]]]
    sums = [p + q + r for p, (q, r) in nested]
    return {
        "first_last": [first, last],
        "middle": middle,
        "head_tail": [head, tail],
        "a_b_rest": [a, b, rest],
        "merged": merged,
        "combined": combined,
        "unique": sorted(unique),
        "pairs": pairs,
        "swapped": swapped,
        "xy": [x, y],
        "sums": sums,
        "kwargs_call": "{lang}-{tz}".format(**merged),
    }
