# args: {"name": "report.txt"}
import os
import os.path


def os_path_report(name: str) -> dict:
    """Write a report with os and os.path, then describe the directory."""
    base = os.path.join(os.getcwd(), "reports")
    os.makedirs(os.path.join(base, "2024", "q1"), exist_ok=True)
    os.makedirs(base, exist_ok=True)
    target = os.path.join(base, "2024", name)
    with open(target, "w", encoding="utf-8") as handle:
        handle.write("total: 3\n")
    stem, extension = os.path.splitext(os.path.basename(target))
    moved = os.path.join(base, stem + ".bak")
    os.rename(target, moved)
    info = os.stat(moved)
    walked = [
        (os.path.relpath(top, base), sorted(dirs), sorted(files)) for top, dirs, files in os.walk(base)
    ]
    entries = sorted((entry.name, entry.is_dir(), entry.is_file()) for entry in os.scandir(base))
    result = {
        "stem": stem,
        "extension": extension,
        "dirname": os.path.relpath(os.path.dirname(target), os.getcwd()),
        "exists": [os.path.exists(moved), os.path.exists(target), os.path.isdir(base), os.path.isfile(moved)],
        "size": info.st_size,
        "getsize": os.path.getsize(moved),
        "walked": walked,
        "entries": entries,
        "listdir": sorted(os.listdir(base)),
        "abs": os.path.abspath("x/../y") == os.path.join(os.getcwd(), "y"),
        "isabs": [os.path.isabs("/a"), os.path.isabs("a")],
        "normpath": os.path.normpath("a//b/./c/../d"),
        "split": os.path.split("a/b/c.txt"),
        "commonpath": os.path.commonpath(["/a/b/c", "/a/b/d"]),
        "sep": [os.sep, os.path.sep, os.curdir, os.pardir, os.extsep],
    }
    os.remove(moved)
    os.rmdir(os.path.join(base, "2024", "q1"))
    result["after"] = sorted(os.listdir(os.path.join(base, "2024")))
    return result
