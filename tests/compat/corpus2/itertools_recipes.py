# args: {"items": ["a", "b", "c", "d", "e"], "numbers": [3, 1, 4, 1, 5, 9, 2, 6]}
import itertools as it
import operator


def batched(iterable, n):
    iterator = iter(iterable)
    while batch := tuple(it.islice(iterator, n)):
        yield batch


def itertools_recipes(items: list[str], numbers: list[int]) -> dict:
    """The itertools functions tool code uses."""
    a, b = it.tee(numbers)
    return {
        "product": ["".join(p) for p in it.product("ab", repeat=2)],
        "permutations": len(list(it.permutations(items, 3))),
        "combinations_wr": list(it.combinations_with_replacement("xy", 2)),
        "islice": list(it.islice(it.count(10, 5), 3)),
        "takewhile": list(it.takewhile(lambda n: n < 5, numbers)),
        "dropwhile": list(it.dropwhile(lambda n: n < 5, numbers)),
        "pairwise": list(it.pairwise(items))[:2],
        "batched": list(batched(items, 2)),
        "starmap": list(it.starmap(operator.mul, [(2, 3), (4, 5)])),
        "compress": list(it.compress(items, [1, 0, 1, 0, 1])),
        "filterfalse": list(it.filterfalse(lambda n: n % 2, numbers)),
        "repeat": list(it.repeat("x", 3)),
        "accumulate_max": list(it.accumulate(numbers, max)),
        "accumulate_initial": list(it.accumulate([1, 2, 3], operator.mul, initial=10)),
        "chain": list(it.chain(items[:2], numbers[:2])),
        "tee": [sum(a), max(b)],
        "cycle": list(it.islice(it.cycle("ab"), 5)),
        "zip_longest": list(it.zip_longest("ab", [1], fillvalue="-")),
    }
