import re


def warm_up() -> str:
    found = re.search("b", "ab")
    return repr(
        [
            re.sub(r"(?P<w>\w+)@(\w+)", r"\g<w> at \2", "a@b"),
            re.compile(r"\s+", re.I | re.M).split("a b"),
            re.fullmatch(r"[\w.]+", "a.b") is not None,
            re.findall(r"\d+", "a1b22"),
            found.span() if found else None,
        ]
    )
