# args: {}
import io
import os


def open_modes() -> dict:
    """Every everyday open() mode, and the errors CPython gives."""
    result = {}
    with open("data.txt", "w") as handle:
        result["written"] = handle.write("héllo\nwörld\n")
    with open("data.txt", "a") as handle:
        print("tail", file=handle)
    with open("data.txt") as handle:
        result["lines"] = [line.rstrip("\n") for line in handle]
    with open("data.txt", "rb") as handle:
        result["raw"] = list(handle.read(8))
        result["tell"] = handle.tell()
        handle.seek(-5, io.SEEK_END)
        result["end"] = handle.read().decode()
    with open("data.txt", "r+") as handle:
        handle.write("J")
        handle.seek(0)
        result["patched"] = handle.readline()
    with open("crlf.txt", "w", newline="\r\n") as handle:
        handle.write("a\nb\n")
    with open("crlf.txt", "rb") as handle:
        result["crlf"] = handle.read().decode()
    with open("crlf.txt", newline="") as handle:
        result["newline_kept"] = handle.read()
    with open("latin.txt", "w", encoding="latin-1") as handle:
        handle.write("ção")
    result["latin"] = open("latin.txt", "rb").read().hex()
    with open("new.txt", "x") as handle:
        handle.write("1")
    errors = []
    for attempt in (
        lambda: open("new.txt", "x"),
        lambda: open("missing.txt"),
        lambda: open(".", "r"),
        lambda: open("data.txt", "rw"),
        lambda: open("missing/dir/file.txt", "w"),
        lambda: os.remove("missing.txt"),
        lambda: os.rmdir("missing"),
        lambda: os.mkdir("."),
    ):
        try:
            attempt()
        except (OSError, ValueError) as error:
            errors.append(f"{type(error).__name__}: {error}")
    result["errors"] = errors
    closed = open("data.txt")
    closed.close()
    try:
        closed.read()
    except ValueError as error:
        result["closed"] = str(error)
    result["mode"] = [open("data.txt").mode, open("data.txt", "rb").mode, open("data.txt", "a+").mode]
    result["name"] = open("data.txt").name
    result["cwd_files"] = sorted(os.listdir("."))
    return result
