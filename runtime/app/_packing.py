"""``unpack`` an export into a folder of editable files, and ``pack`` the folder back into an archive.

``unpack`` writes the files of the app's root folder (tools' and callbacks' ``python_code.py``
included; code held inline in a resource file gets its own ``.py`` file too, ``inline``) into the
target folder and keeps the archive itself in ``.toolpen/export.zip``.
``pack`` rebuilds that archive: an unchanged file keeps its entry byte for byte (order,
timestamps, compression, attributes), an edited one gets its new content in the same entry, a
deleted one is dropped and a new one is added at the end; inline code is folded back into its
member; so a round trip without edits gives the same bytes. A folder never unpacked (``samples/apps/...``) is packed afresh under its name.
``pack`` refuses an app that does not load (``InvalidApp``): the console would refuse it too.
"""

from __future__ import annotations

from pathlib import Path

from runtime.app import _zipraw as zipraw
from runtime.app._archive import Archive, ArchiveLimits, extract, read_archive
from runtime.app._inline import find_inline, fold, lay_out
from runtime.app._loader import WORK_FOLDER, app_folder, app_from_files, read_files
from sandbox.common.errors import BadArchive

ORIGINAL = "export.zip"


def unpack(archive_path: Path, folder: Path, limits: ArchiveLimits | None = None) -> None:
    """Lay the export out in ``folder`` (absent or empty); ``BadArchive`` before anything is written."""
    data = archive_path.read_bytes()
    archive = read_archive(data, limits)
    if any(name.split("/")[0] == WORK_FOLDER for name in archive.files):
        raise BadArchive(f"the archive holds a {WORK_FOLDER}/ folder, which unpack keeps for itself")
    zipraw.parse(data)  # an archive pack could not rewrite is refused now, not after edits
    extract(Archive(archive.root, lay_out(archive.files, find_inline(archive.files))), folder)
    work = folder / WORK_FOLDER
    work.mkdir()
    (work / ORIGINAL).write_bytes(data)


def pack(folder: Path, limits: ArchiveLimits | None = None) -> bytes:
    """The archive the console imports, from an (unpacked, possibly edited) app folder."""
    root, files = read_files(folder, limits)
    app_from_files(root, files)
    base_folder = app_folder(folder)
    original = base_folder / WORK_FOLDER / ORIGINAL
    if not original.is_file():
        added = [_added(base_folder, f"{root}/", name, files[name]) for name in files]
        return zipraw.build(zipraw.RawArchive([], [], b""), {}, added)
    data = original.read_bytes()
    raw, base = zipraw.parse(data), read_archive(data, limits)
    files = fold(files, base.files, find_inline(base.files))
    app_from_files(root, files)
    prefix = f"{base.root}/"
    contents: dict[str, bytes | None] = {}
    for entry in raw.entries:
        name = entry.name.removeprefix(prefix)
        if entry.name.endswith("/"):
            if not name or any(path.startswith(name) for path in files):
                contents[entry.name] = None
        elif name in files:
            contents[entry.name] = None if files[name] == base.files.get(name) else files[name]
    added = [_added(base_folder, prefix, name, files[name]) for name in files if name not in base.files]
    return zipraw.build(raw, contents, added)


def _added(folder: Path, prefix: str, name: str, content: bytes) -> zipraw.RawEntry:
    return zipraw.new_entry(prefix + name, content, (folder / name).stat().st_mtime)
