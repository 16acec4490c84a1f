# args: {"items": ["tea", "coffee", "juice"]}
import io


def print_sep_end_file(items: list[str]) -> str:
    """print with sep, end, file= a StringIO, and flush."""
    print("menu:", *items, sep=" | ")
    print("no newline", end="")
    print(" ... continued", end="\n\n")
    print(len(items), "items", sep="\t", flush=True)
    print()
    buffer = io.StringIO()
    for i, item in enumerate(items, 1):
        print(f"{i:>2}. {item}", file=buffer)
    print(None, True, 3.0, [1], {"a": 1}, ("t",))
    print("done", file=None)
    return buffer.getvalue()
