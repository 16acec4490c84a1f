"""Lay out the CES exports corpus (tests/corpora/ces_exports/SOURCES.md) from fetched snapshots and check it.

    .venv/bin/python scripts/ces_exports.py [--mirrors /work/.mirror] [--out /work/corpora/ces_exports]

Each row of SOURCES.md's table names a repository, a commit and a path: the folder is
``git archive <commit>:<path>`` of the repository's bare snapshot (``<mirrors>/<owner>+<name>/repo``,
as the search tool's ``fetch`` leaves it), unpacked into ``<out>/<short name>``; a ``(fork of ...)``
note after the repository name is ignored. Every file is then checked against MANIFEST.sha256 (and
nothing extra may be there). The tests read ``$TOOLPEN_CES_EXPORTS``, default
``/work/corpora/ces_exports``. The exports are third-party and never committed.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests/corpora/ces_exports"


@dataclass(frozen=True)
class Export:
    short_name: str
    repository: str
    path: str
    commit: str


def exports(sources: Path) -> list[Export]:
    """The table rows of SOURCES.md: short name, repository, path, commit."""
    found = []
    for line in sources.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or len(cells[3]) != 40 or not all(c in "0123456789abcdef" for c in cells[3]):
            continue
        repository = cells[1].split()[0]
        found.append(Export(cells[0], repository, cells[2], cells[3]))
    return found


def lay_out(export: Export, mirrors: Path, out: Path) -> None:
    git_dir = mirrors / export.repository.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        raise SystemExit(f"{git_dir} is absent: fetch github:{export.repository} first")
    archive = subprocess.run(
        ["git", "--git-dir", str(git_dir), "archive", "--format=tar", f"{export.commit}:{export.path}"],
        check=True,
        capture_output=True,
    ).stdout
    target = out / export.short_name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")


def check(out: Path, manifest: Path, names: list[str]) -> list[str]:
    """Differences between the laid-out folders and MANIFEST.sha256 (empty: they agree)."""
    expected = {}
    for line in manifest.read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            expected[name.strip().removeprefix("./")] = digest
    found = {
        path.relative_to(out).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for name in names
        for path in sorted((out / name).rglob("*"))
        if path.is_file()
    }
    problems = [f"missing: {name}" for name in sorted(expected.keys() - found.keys())]
    problems += [f"not in the manifest: {name}" for name in sorted(found.keys() - expected.keys())]
    problems += [
        f"differs: {name}" for name in sorted(expected.keys() & found.keys()) if expected[name] != found[name]
    ]
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=Path("/work/corpora/ces_exports"))
    options = parser.parse_args()
    rows = exports(CORPUS / "SOURCES.md")
    for export in rows:
        lay_out(export, options.mirrors, options.out)
    problems = check(options.out, CORPUS / "MANIFEST.sha256", [export.short_name for export in rows])
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        raise SystemExit(f"{len(problems)} differences from MANIFEST.sha256")
    print(f"{len(rows)} exports laid out in {options.out}, every file as MANIFEST.sha256 says")


if __name__ == "__main__":
    main()
