# args: {"text": "  Hello,   WORLD!  this is   a TEST.\tTabs\tand\nnewlines  "}
def string_methods_cleanup(text: str) -> dict:
    """Clean up messy text."""
    collapsed = " ".join(text.split())
    return {
        "collapsed": collapsed,
        "sentence": collapsed.capitalize(),
        "title": collapsed.title(),
        "swap": collapsed[:5].swapcase(),
        "words": len(collapsed.split()),
        "starts": collapsed.startswith(("Hello", "Hi")),
        "replaced": collapsed.replace("TEST", "test", 1),
        "centered": collapsed[:5].center(11, "*"),
        "zfill": "42".zfill(5),
        "partition": collapsed.partition(",")[2].strip(),
        "strip_chars": "xxhixx".strip("x"),
        "removeprefix": collapsed.removeprefix("Hello, "),
        "isdigit": ["12".isdigit(), "1.2".isdigit()],
        "find": collapsed.find("WORLD"),
        "translate": collapsed.translate(str.maketrans("aeiou", "AEIOU"))[:12],
    }
