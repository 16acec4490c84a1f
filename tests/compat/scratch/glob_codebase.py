# args: {"directory": "project"}
import glob
import os


def glob_codebase(directory: str) -> dict:
    """Lay out a small tree in the working directory, then list it with glob as a codebase tool does."""
    for name in ("a.py", "sub/b.py", "sub/deeper/c.txt", ".hidden.py", "sub/.cache/x.py"):
        path = os.path.join(directory, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f"# {name}\n")
    listing = sorted(glob.glob(os.path.join(directory, "**"), recursive=True))
    contents = {path: open(path, encoding="utf-8").read() for path in listing if os.path.isfile(path)}
    return {
        "listing": listing,
        "contents": contents,
        "python": sorted(glob.glob("**/*.py", recursive=True)),
        "not_recursive": sorted(glob.glob(f"{directory}/**/*.py")),
        "hidden": sorted(glob.glob(f"{directory}/**/*.py", recursive=True, include_hidden=True)),
        "root_dir": sorted(glob.glob("*", root_dir=directory)),
        "iglob": sorted(glob.iglob(f"{directory}/s?b/*.py")),
        "classes": sorted(glob.glob(f"{directory}/[ab].py")),
        "absolute": sorted(path.replace(os.getcwd(), "<cwd>") for path in glob.glob(os.path.join(os.getcwd(), directory, "*"))),
        "escape": glob.escape("a[b]*?.py"),
        "magic": [glob.has_magic("*.py"), glob.has_magic("plain.py")],
        "missing": glob.glob("nowhere/**", recursive=True),
    }
