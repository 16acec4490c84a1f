# args: {"text": "the cat and the hat and the bat sat"}
from collections import Counter, OrderedDict, defaultdict, deque


def collections_word_stats(text: str) -> dict:
    """Word statistics."""
    words = text.split()
    counts = Counter(words)
    by_letter = defaultdict(list)
    for word in words:
        by_letter[word[0]].append(word)
    recent = deque(maxlen=3)
    for word in words:
        recent.append(word)
    ordered = OrderedDict(sorted(counts.items()))
    ordered.move_to_end("the")
    return {
        "top": counts.most_common(2),
        "by_letter": dict(by_letter),
        "recent": list(recent),
        "ordered": list(ordered),
        "total": sum(counts.values()),
        "unique": len(counts),
    }
