# args: {"docs": {"d1": "the cat sat", "d2": "the dog sat down", "d3": "a cat and a dog"}}
from collections import defaultdict


def tree():
    return defaultdict(tree)


def to_dict(node):
    return {k: to_dict(v) for k, v in node.items()} if isinstance(node, defaultdict) else node


def defaultdict_nested_index(docs: dict) -> dict:
    """An inverted index and a nested tree with defaultdict."""
    index = defaultdict(set)
    counts = defaultdict(lambda: defaultdict(int))
    for doc_id, text in docs.items():
        for position, word in enumerate(text.split()):
            index[word].add(doc_id)
            counts[doc_id][word] += 1
    taxonomy = tree()
    taxonomy["animals"]["mammals"]["cat"] = 1
    taxonomy["animals"]["mammals"]["dog"] = 2
    taxonomy["animals"]["birds"]["owl"] = 3
    lists = defaultdict(list)
    for word in "apple avocado banana blueberry cherry".split():
        lists[word[0]].append(word)
    return {
        "index": {w: sorted(ids) for w, ids in sorted(index.items())},
        "counts": {d: dict(c) for d, c in counts.items()},
        "taxonomy": to_dict(taxonomy),
        "lists": dict(lists),
        "factory": lists.default_factory.__name__,
        "missing_get": lists.get("z"),
        "missing_index": lists["z"],
        "keys_after": sorted(lists),
    }
