# args: {"text": "  Hello,\tWorld! hello again  "}
def string_methods_tour(text: str) -> dict:
    """Exercise the everyday string methods."""
    stripped = text.strip()
    table = str.maketrans({"!": None, ",": ";"}, )
    return {
        "partition": list(stripped.partition(",")),
        "rpartition": list(stripped.rpartition(" ")),
        "zfill": "42".zfill(5),
        "center": "menu".center(10, "*"),
        "ljust": "id".ljust(5, ".") + "|",
        "rjust": "7".rjust(3, "0"),
        "expandtabs": stripped.expandtabs(4),
        "translate": stripped.translate(table),
        "maketrans3": "abc".translate(str.maketrans("ab", "xy", "c")),
        "removeprefix": stripped.removeprefix("Hello"),
        "removesuffix": "report.pdf".removesuffix(".pdf"),
        "splitlines": "a\nb\r\nc\n".splitlines(keepends=True),
        "title": "o'neil mcdonald".title(),
        "capitalize": "hELLO".capitalize(),
        "swapcase": "AbC".swapcase(),
        "checks": ["x1".isidentifier(), "²".isdigit(), "²".isdecimal(), "Ⅷ".isnumeric(), " ".isspace(), "Ab".istitle()],
        "count": stripped.lower().count("hello"),
        "find": [stripped.find("o"), stripped.rfind("o"), stripped.find("z")],
        "rsplit": "a.b.c.d".rsplit(".", 2),
        "join": "-".join(map(str, range(4))),
        "startswith_tuple": stripped.startswith(("Hi", "Hello")),
        "encode_len": len("héllo".encode()),
        "repr": repr("it's \"quoted\"\n"),
        "ascii": ascii("naïve ☃"),
    }
