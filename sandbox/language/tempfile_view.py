"""The ``tempfile`` view: temporary files and directories in the call's scratch directory.

``gettempdir()`` is the scratch directory (``/tmp``, the call's own); names are CPython's shape
(``tmp`` + eight random characters); files are ``scratch_files``' objects, so everything a tool
does with one is CPython's ``io``. ``NamedTemporaryFile(delete=True)`` removes its file when
closed, ``TemporaryDirectory`` its tree on ``cleanup()`` or at the end of its ``with``.
"""

from __future__ import annotations

import errno
import os
import posixpath
import secrets
from typing import Any

from sandbox.language import os_view
from sandbox.language.scratch_files import DESCRIPTORS, checked_mode, open_raw, wrap
from sandbox.language.scratch_fs import SCRATCH, TREE, exact_path

TMP_MAX = 10000
_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def gettempdir() -> str:
    return SCRATCH


def gettempdirb() -> bytes:
    return os.fsencode(SCRATCH)


def gettempprefix() -> str:
    return "tmp"


def gettempprefixb() -> bytes:
    return b"tmp"


def _new_name(directory: Any, prefix: Any, suffix: Any) -> str:
    folder = SCRATCH if directory is None else exact_path(directory)
    start = "tmp" if prefix is None else exact_path(prefix)
    end = "" if suffix is None else exact_path(suffix)
    for _ in range(TMP_MAX):
        name = posixpath.join(folder, start + "".join(secrets.choice(_CHARACTERS) for _ in range(8)) + end)
        if TREE.find(name) is None:
            return os_view.abspath(name)
    raise FileExistsError(errno.EEXIST, "No usable temporary file name found")


def _create(directory: Any, prefix: Any, suffix: Any, *, is_dir: bool) -> str:
    """A new file or directory under a new name (CPython makes it with ``O_EXCL``): its path."""
    name = _new_name(directory, prefix, suffix)
    TREE.add(name, directory=is_dir)
    return name


def mkstemp(suffix: Any = None, prefix: Any = None, dir: Any = None, text: bool = False) -> tuple[int, Any]:
    """A new file and one of this call's descriptors on it (``os.close``, ``os.write``, ``os.fdopen`` take it)."""
    name = _create(dir, prefix, suffix, is_dir=False)
    return DESCRIPTORS.add(open_raw(name, "r+b")), _as_given(name, suffix, prefix, dir)


def mkdtemp(suffix: Any = None, prefix: Any = None, dir: Any = None) -> Any:
    name = _create(dir, prefix, suffix, is_dir=True)
    return _as_given(name, suffix, prefix, dir)


def mktemp(suffix: str = "", prefix: str = "tmp", dir: Any = None) -> str:
    return _new_name(dir, prefix, suffix)


def _as_given(name: str, *parts: Any) -> Any:
    return os.fsencode(name) if any(isinstance(part, bytes) for part in parts) else name


def NamedTemporaryFile(  # noqa: N802 - the standard library's name
    mode: str = "w+b",
    buffering: int = -1,
    encoding: Any = None,
    newline: Any = None,
    suffix: Any = None,
    prefix: Any = None,
    dir: Any = None,
    delete: bool = True,
    *,
    errors: Any = None,
    delete_on_close: bool = True,
) -> Any:
    """A file object whose ``name`` is its path in the scratch directory; removed when closed if ``delete``."""
    mode = checked_mode(mode)
    name = _create(dir, prefix, suffix, is_dir=False)  # made new, then opened with the mode given
    raw = open_raw(name, mode.replace("x", "w"), delete=delete)
    return wrap(raw, mode, buffering, encoding, errors, newline)


class TemporaryDirectory:
    """A directory in the scratch directory, removed with what it holds by ``cleanup()`` or ``with``'s end."""

    __slots__ = ("name", "_delete")
    __module__ = "tempfile"

    def __init__(
        self,
        suffix: Any = None,
        prefix: Any = None,
        dir: Any = None,
        ignore_cleanup_errors: bool = False,
        *,
        delete: bool = True,
    ) -> None:
        self.name = mkdtemp(suffix, prefix, dir)
        self._delete = delete

    def __enter__(self) -> Any:
        return self.name

    def __exit__(self, *exc: object) -> None:
        if self._delete:
            self.cleanup()

    def cleanup(self) -> None:
        _remove_tree(exact_path(self.name))

    def __repr__(self) -> str:
        return f"<TemporaryDirectory {self.name!r}>"


def _remove_tree(path: str) -> None:
    node = TREE.find(path)
    if node is None:
        return
    for name, child in list((node.children or {}).items()):
        child_path = posixpath.join(path, name)
        if child.is_dir:
            _remove_tree(child_path)
        else:
            TREE.remove(child_path, directory=False)
    TREE.remove(path, directory=True)


def members(name: str) -> dict[str, Any]:
    return {
        "gettempdir": gettempdir,
        "gettempdirb": gettempdirb,
        "gettempprefix": gettempprefix,
        "gettempprefixb": gettempprefixb,
        "mkstemp": mkstemp,
        "mkdtemp": mkdtemp,
        "mktemp": mktemp,
        "NamedTemporaryFile": NamedTemporaryFile,
        # removed when closed, with a name: what CPython's are where files cannot be unlinked while open
        "TemporaryFile": NamedTemporaryFile,
        "SpooledTemporaryFile": NamedTemporaryFile,
        "TemporaryDirectory": TemporaryDirectory,
        "TMP_MAX": TMP_MAX,
        "tempdir": None,
    }


def left_out(module: str, member: str) -> str | None:
    return None
