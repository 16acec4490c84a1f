import textwrap


def warm_up() -> str:
    return repr(
        [
            textwrap.fill("word " * 30, width=20),
            textwrap.shorten("a b c d e f", 5),
            textwrap.dedent("  a"),
            textwrap.indent("a", "  "),
        ]
    )
