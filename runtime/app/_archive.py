"""Exported app archives, read defensively: every entry checked before anything is written.

An export is a zip holding one root folder named for the app. Refused, with kind
``bad_archive`` and the entry named: absolute paths, ``..`` parts, backslashes or drive letters,
symbolic links, encrypted or duplicate entries, files outside the root folder, more than
``max_entries`` entries, and more than ``max_bytes`` once decompressed (counted while reading, so
a header that understates its size gains nothing). ``extract`` writes only below its target
folder, creating every file afresh (never through an existing link).
"""

from __future__ import annotations

import io
import os
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sandbox.common.errors import BadArchive

MAX_ENTRIES = 5_000
MAX_BYTES = 64 << 20
_CHUNK = 1 << 16
_DRIVE = re.compile(r"^[A-Za-z]:")


@dataclass(frozen=True)
class ArchiveLimits:
    """Caps on an archive's entries and decompressed size (a zip bomb stops at the cap)."""

    max_entries: int = MAX_ENTRIES
    max_bytes: int = MAX_BYTES


@dataclass(frozen=True)
class Archive:
    """An archive's root folder and its files (paths relative to the root), in archive order."""

    root: str
    files: dict[str, bytes]


def checked_name(name: str) -> PurePosixPath:
    """The entry's path, or ``BadArchive`` when it could land outside the folder it is extracted to."""
    if not name or "\\" in name or "\x00" in name or name.startswith("/") or _DRIVE.match(name):
        raise BadArchive(f"entry {name!r}: absolute or malformed path")
    path = PurePosixPath(name)
    if any(part in ("..", ".") for part in path.parts):
        raise BadArchive(f"entry {name!r}: a path with '..' or '.' parts")
    return path


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def read_archive(data: bytes, limits: ArchiveLimits | None = None) -> Archive:
    """The files of an export archive; ``BadArchive`` for anything unsafe or unreadable."""
    limits = limits or ArchiveLimits()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as error:
        raise BadArchive(f"not a zip archive: {error}") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.max_entries:
            raise BadArchive(f"{len(infos)} entries: more than the {limits.max_entries} allowed")
        roots: set[str] = set()
        seen: set[str] = set()
        for info in infos:
            path = checked_name(info.filename)
            if _is_link(info):
                raise BadArchive(f"entry {info.filename!r}: symbolic links are refused")
            if info.flag_bits & 0x1:
                raise BadArchive(f"entry {info.filename!r}: encrypted entries are refused")
            if info.filename in seen:
                raise BadArchive(f"entry {info.filename!r} appears twice")
            seen.add(info.filename)
            if len(path.parts) == 1 and not info.is_dir():
                raise BadArchive(
                    f"entry {info.filename!r} is not in a root folder: an export holds one folder named for the app"
                )
            roots.add(path.parts[0])
        if len(roots) != 1:
            raise BadArchive(f"an export holds one root folder, this one has {len(roots)}: {sorted(roots)}")
        root = roots.pop()
        budget = limits.max_bytes
        files: dict[str, bytes] = {}
        for info in infos:
            if info.is_dir():
                continue
            content = _read_capped(archive, info, budget, limits.max_bytes)
            budget -= len(content)
            files[str(PurePosixPath(*PurePosixPath(info.filename).parts[1:]))] = content
    return Archive(root=root, files=files)


def _read_capped(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, cap: int) -> bytes:
    chunks: list[bytes] = []
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                budget -= len(chunk)
                if budget < 0:
                    raise BadArchive(f"more than {cap} bytes once decompressed (at {info.filename!r})")
                chunks.append(chunk)
    except (zipfile.BadZipFile, OSError, NotImplementedError, EOFError) as error:
        raise BadArchive(f"entry {info.filename!r} cannot be read: {error}") from None
    return b"".join(chunks)


def extract(archive: Archive, folder: Path) -> None:
    """Write the archive's files below ``folder`` (which must be absent or empty); nothing goes elsewhere."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BadArchive(f"{folder} exists and is not an empty folder")
    folder.mkdir(parents=True, exist_ok=True)
    base = folder.resolve()
    for name, content in archive.files.items():
        target = base.joinpath(*checked_name(name).parts)
        if not target.resolve().is_relative_to(base):
            raise BadArchive(f"entry {name!r} would land outside {folder}")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as stream:
            stream.write(content)
