"""The ``pathlib`` view: CPython's pure paths, and a ``Path`` whose I/O is the call's scratch directory.

``PurePath``, ``PurePosixPath`` and ``PureWindowsPath`` are CPython's (they compute on strings
only). ``Path`` is a ``PurePosixPath`` subclass, so everything pure (``/``, ``parent``, ``suffix``,
``relative_to``, ...) is CPython's too; its methods that touch files go to the ``os`` view's
functions over the scratch tree (``os_view``), never to the real file system.
"""

from __future__ import annotations

import errno
import fnmatch
import pathlib
import re
from collections.abc import Iterator
from typing import Any

from sandbox.language import os_view
from sandbox.language.scratch_files import open_file
from sandbox.language.scratch_fs import os_error


class Path(pathlib.PurePosixPath):
    """``pathlib.Path`` over the scratch directory: ``Path(...)`` makes a ``PosixPath``, as on Linux."""

    __slots__ = ()
    __module__ = "pathlib"  # what CPython's says (repr of the class)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Path:
            cls = PosixPath
        return super().__new__(cls, *args)

    @classmethod
    def cwd(cls) -> Any:
        return cls(os_view.getcwd())

    @classmethod
    def home(cls) -> Any:
        return cls(os_view.expanduser("~"))

    def absolute(self) -> Any:
        return self if self.is_absolute() else type(self)(os_view.getcwd(), self)

    def resolve(self, strict: bool = False) -> Any:
        return type(self)(os_view.realpath(self, strict=strict))

    def expanduser(self) -> Any:
        return type(self)(os_view.expanduser(str(self)))

    def stat(self, *, follow_symlinks: bool = True) -> Any:
        return os_view.stat(self)

    def lstat(self) -> Any:
        return os_view.stat(self)

    def exists(self, *, follow_symlinks: bool = True) -> bool:
        return os_view.exists(self)

    def is_dir(self) -> bool:
        return os_view.isdir(self)

    def is_file(self) -> bool:
        return os_view.isfile(self)

    def is_symlink(self) -> bool:
        return False

    def is_mount(self) -> bool:
        return os_view.ismount(self)

    def samefile(self, other_path: Any) -> bool:
        return os_view.samefile(self, other_path)

    def iterdir(self) -> Iterator[Any]:
        for name in os_view.listdir(self):
            yield self / name

    def glob(self, pattern: str, *, case_sensitive: Any = None) -> Iterator[Any]:
        """Paths below this one matching ``pattern`` (``*``, ``?``, ``[...]``, ``**`` for any depth)."""
        if not pattern:
            raise ValueError(f"Unacceptable pattern: {pattern!r}")
        if pattern.startswith("/"):
            raise NotImplementedError("Non-relative patterns are unsupported")
        parts = [part for part in pattern.split("/") if part]
        yield from self._matching(parts)

    def rglob(self, pattern: str, *, case_sensitive: Any = None) -> Iterator[Any]:
        yield from self.glob(f"**/{pattern}")

    def _matching(self, parts: list[str]) -> Iterator[Any]:
        if not parts:
            yield self
            return
        head, rest = parts[0], parts[1:]
        if head == "**":
            seen = set()
            for directory in self._directories_below():
                for found in directory._matching(rest):
                    if found not in seen:
                        seen.add(found)
                        yield found
            return
        if not self.is_dir():
            return
        if not re.search(r"[*?\[]", head):
            child = self / head
            if rest and child.is_dir() or not rest and child.exists():
                yield from child._matching(rest)
            return
        for name in os_view.listdir(self):
            if fnmatch.fnmatchcase(name, head) and not (name.startswith(".") and not head.startswith(".")):
                child = self / name
                if not rest or child.is_dir():
                    yield from child._matching(rest)

    def _directories_below(self) -> Iterator[Any]:
        yield self
        for top, dirs, _files in os_view.walk(str(self)):
            for name in dirs:
                yield type(self)(top, name)

    def walk(
        self, top_down: bool = True, on_error: Any = None, follow_symlinks: bool = False
    ) -> Iterator[Any]:
        for top, dirs, files in os_view.walk(str(self), top_down, on_error):
            yield type(self)(top), dirs, files

    def mkdir(self, mode: int = 0o777, parents: bool = False, exist_ok: bool = False) -> None:
        try:
            os_view.mkdir(self)
        except FileNotFoundError:
            if not parents or self.parent == self:
                raise
            self.parent.mkdir(parents=True, exist_ok=True)
            self.mkdir(mode, parents=False, exist_ok=exist_ok)
        except OSError:
            if not exist_ok or not self.is_dir():
                raise

    def rmdir(self) -> None:
        os_view.rmdir(self)

    def unlink(self, missing_ok: bool = False) -> None:
        try:
            os_view.remove(self)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rename(self, target: Any) -> Any:
        os_view.rename(self, target)
        return type(self)(target)

    def replace(self, target: Any) -> Any:
        return self.rename(target)

    def touch(self, mode: int = 0o666, exist_ok: bool = True) -> None:
        if self.exists():
            if not exist_ok:
                raise os_error(errno.EEXIST, str(self))
            os_view.utime(self)
            return
        open_file(self, "ab").close()

    def open(
        self,
        mode: str = "r",
        buffering: int = -1,
        encoding: Any = None,
        errors: Any = None,
        newline: Any = None,
    ) -> Any:
        return open_file(self, mode, buffering, encoding, errors, newline)

    def read_text(self, encoding: Any = None, errors: Any = None) -> str:
        with self.open("r", encoding=encoding, errors=errors) as file:
            return file.read()

    def read_bytes(self) -> bytes:
        with self.open("rb") as file:
            return file.read()

    def write_text(self, data: str, encoding: Any = None, errors: Any = None, newline: Any = None) -> int:
        if not isinstance(data, str):
            raise TypeError(f"data must be str, not {type(data).__name__}")
        with self.open("w", encoding=encoding, errors=errors, newline=newline) as file:
            return file.write(data)

    def write_bytes(self, data: Any) -> int:
        view = memoryview(data)
        with self.open("wb") as file:
            return file.write(view)

    def readlink(self) -> Any:
        raise OSError(errno.EINVAL, "Invalid argument: the scratch directory has no links", str(self))


class PosixPath(Path):
    """What ``Path(...)`` makes."""

    __slots__ = ()
    __module__ = "pathlib"


_REFUSED = "the scratch directory has no links, owners or permissions to change"
LEFT_OUT = {
    "WindowsPath": "tools run on Linux: use Path (PurePosixPath / PureWindowsPath compute on strings)",
}
_PATH_LEFT_OUT = ("symlink_to", "hardlink_to", "chmod", "lchmod", "owner", "group")


def _refuse_method(name: str) -> Any:
    def refused(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Path.{name} is not available in toolpen: {_REFUSED}")

    refused.__name__ = name
    return refused


for _name in _PATH_LEFT_OUT:
    setattr(Path, _name, _refuse_method(_name))


def members(name: str) -> dict[str, Any]:
    return {
        "PurePath": pathlib.PurePath,
        "PurePosixPath": pathlib.PurePosixPath,
        "PureWindowsPath": pathlib.PureWindowsPath,
        "Path": Path,
        "PosixPath": PosixPath,
    }


def left_out(module: str, member: str) -> str | None:
    return LEFT_OUT.get(member)
