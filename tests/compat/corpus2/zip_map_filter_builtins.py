# args: {"names": ["ana", "", "bo", null, "cy"], "ages": [31, 25, 40]}
def zip_map_filter_builtins(names: list, ages: list[int]) -> dict:
    """Everyday builtins with their error messages."""
    present = list(filter(None, names))
    try:
        list(zip(present, ages, strict=True))
        strict = "ok"
    except ValueError as error:
        strict = str(error)
    try:
        ", ".join(["a", 1])
        join = "ok"
    except TypeError as error:
        join = str(error)
    try:
        int("4.5")
    except ValueError as error:
        int_error = str(error)
    try:
        {}["k"]
    except KeyError as error:
        key_error = repr(error)
    try:
        [].pop()
    except IndexError as error:
        pop_error = str(error)
    try:
        None + 1
    except TypeError as error:
        none_error = str(error)
    return {
        "present": present,
        "pairs": list(zip(present, ages)),
        "sums": list(map(lambda a, b: a + b, ages, [1, 2, 3])),
        "any_all": [any(n == "bo" for n in present), all(present)],
        "reversed_dict": list(reversed({"a": 1, "b": 2})),
        "merged": {"a": 1} | {"b": 2},
        "enumerate": list(enumerate(present, start=10)),
        "strict": strict,
        "join": join,
        "int_error": int_error,
        "key_error": key_error,
        "pop_error": pop_error,
        "none_error": none_error,
        "round": [round(2.5), round(0.125, 2), round(-0.5)],
        "chr_ord": [chr(9731), ord("€")],
        "divmod": divmod(17, 5),
        "abs_complex": abs(3 + 4j),
        "sum_start": sum([[1], [2]], []),
        "min_key": min(present, key=len),
        "sorted_none_last": sorted(names, key=lambda n: (n is None, n or "")),
        "isinstance_none": [isinstance(n, str) for n in names],
        "slice": "abcdef"[slice(1, None, 2)],
        "hash_eq": hash(1) == hash(1.0),
        "frozenset": sorted(frozenset("abca")),
        "bool": [bool([]), bool("0"), bool(0.0)],
    }
