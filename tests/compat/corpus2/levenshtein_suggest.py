# args: {"word": "recieve", "vocabulary": ["receive", "deceive", "relieve", "recipe", "review"]}
from functools import lru_cache


def distance(a: str, b: str) -> int:
    @lru_cache(maxsize=None)
    def d(i: int, j: int) -> int:
        if i == 0 or j == 0:
            return i or j
        cost = 0 if a[i - 1] == b[j - 1] else 1
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + cost)

    return d(len(a), len(b))


def levenshtein_suggest(word: str, vocabulary: list[str]) -> list:
    """Suggest the closest words, nearest first."""
    scored = sorted(((distance(word, w), w) for w in vocabulary), key=lambda pair: (pair[0], pair[1]))
    return [f"{w} ({d})" for d, w in scored[:3]]
