# args: {"notes": ["buy milk", "call Ana", "ship order 7"]}
import json
from pathlib import Path, PurePath, PurePosixPath


def pathlib_notes(notes: list) -> dict:
    """Keep notes as files with pathlib and read them back."""
    root = Path.cwd() / "notes"
    root.mkdir()
    for index, note in enumerate(notes):
        (root / f"{index:02}.txt").write_text(note + "\n")
    (root / "meta").mkdir(parents=True, exist_ok=True)
    (root / "meta" / "index.json").write_text(json.dumps({"count": len(notes)}))
    (root / "meta" / "raw.bin").write_bytes(bytes(range(5)))
    first = root / "00.txt"
    pure = PurePosixPath("/srv/data/archive.tar.gz")
    result = {
        "texts": [path.read_text() for path in sorted(root.glob("*.txt"))],
        "rglob": sorted(str(path.relative_to(root)) for path in root.rglob("*")),
        "iterdir": sorted(path.name for path in root.iterdir()),
        "meta": json.loads((root / "meta" / "index.json").read_text()),
        "bytes": list((root / "meta" / "raw.bin").read_bytes()),
        "exists": [first.exists(), (root / "nope").exists(), root.is_dir(), first.is_file()],
        "stat": first.stat().st_size,
        "pure": [pure.name, pure.suffix, pure.suffixes, pure.stem, str(pure.parent), pure.parts],
        "with": [str(pure.with_suffix(".zip")), str(pure.with_name("x.txt")), str(pure.with_stem("y"))],
        "relative": str(PurePath("a/b/c").relative_to("a")),
        "repr": [repr(Path("a/b")), repr(PurePosixPath("c"))],
        "types": [isinstance(first, PurePath), type(first).__name__, first == root / "00.txt"],
        "absolute": first.absolute() == first,
        "resolve": (root / ".." / "notes").resolve() == root,
    }
    renamed = first.rename(root / "first.txt")
    renamed.unlink()
    (root / "gone.txt").unlink(missing_ok=True)
    result["after"] = sorted(path.name for path in root.iterdir())
    with (root / "01.txt").open("a") as handle:
        handle.write("again\n")
    result["appended"] = (root / "01.txt").read_text().splitlines()
    return result
