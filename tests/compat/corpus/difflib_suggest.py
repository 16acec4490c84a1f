# args: {"query": "chesecake", "menu": ["cheesecake", "carrot cake", "cheese plate", "cupcake"]}
import difflib


def difflib_suggest(query: str, menu: list[str]) -> dict:
    """Suggest menu items close to a misspelled query."""
    matches = difflib.get_close_matches(query, menu, n=2, cutoff=0.5)
    ratio = difflib.SequenceMatcher(None, query, matches[0]).ratio() if matches else 0
    diff = list(difflib.ndiff([query], [matches[0]])) if matches else []
    return {"suggestions": matches, "ratio": round(ratio, 3), "diff": diff}
