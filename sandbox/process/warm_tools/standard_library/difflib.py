import difflib


def warm_up() -> str:
    return repr(
        [
            difflib.SequenceMatcher(None, "abc", "abd").ratio(),
            difflib.get_close_matches("appel", ["apple"]),
            list(difflib.unified_diff(["a"], ["b"])),
            list(difflib.ndiff(["a"], ["b"])),
            difflib.HtmlDiff().make_table(["a"], ["b"])[:10],
        ]
    )
