"""``open`` for tool code, and the descriptors of ``os.open``/``tempfile.mkstemp``: files of the scratch tree.

A file object is CPython's own layering (``io.BufferedReader``/``Writer``/``Random`` and
``io.TextIOWrapper``) over ``ScratchRaw``, a raw stream reading and writing a node's bytes in
memory, so text decoding, newlines and buffering are CPython's. A descriptor is a number in this
call's table (``DESCRIPTORS``), never a real one: ``os.read``/``write``/``close``/``fdopen`` and
``open(fd)`` take only those, any other number is ``EBADF``.

``type(f)`` of a file object (and of its ``buffer`` and ``raw``) is a stand-in that answers
``isinstance`` as the real class does and builds nothing (``FILE_TYPES``): the buffered classes
hand their raw stream a ``memoryview`` of their own buffer, which a raw stream of the tool's
could keep (a ``cast`` of it outlives the reader) and read after the buffer is freed.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
from typing import Any

from sandbox.language.library_rules import TYPE_STAND_INS
from sandbox.language.rules import refuse
from sandbox.language.scratch_fs import SCRATCH, TREE, Node, exact_path, os_error

_MODE_LETTERS = frozenset("rwaxbt+")


class ScratchRaw(io.RawIOBase):
    """An unbuffered stream over one node's bytes."""

    def __init__(self, node: Node, name: Any, mode: str, *, append: bool, delete: str | None = None) -> None:
        if type(node) is not Node:  # a stand-in's sizes would unbalance the limits' count
            raise TypeError("scratch files are made by open(), not by their class")
        super().__init__()
        self._node = node
        self._position = 0
        self._append = append
        self._readable = "r" in mode or "+" in mode
        self._writable = any(letter in mode for letter in "wax+")
        self._delete = delete
        self.name = name
        self.mode = mode

    def readable(self) -> bool:
        self._check_open()
        return self._readable

    def writable(self) -> bool:
        self._check_open()
        return self._writable

    def seekable(self) -> bool:
        self._check_open()
        return True

    def fileno(self) -> int:
        raise io.UnsupportedOperation("toolpen's scratch files have no file descriptor")

    def readinto(self, buffer: Any) -> int:
        self._check_open()
        if not self._readable:
            raise io.UnsupportedOperation("read")
        chunk = self._node.data[self._position : self._position + len(buffer)]
        memoryview(buffer).cast("B")[: len(chunk)] = chunk
        self._position += len(chunk)
        return len(chunk)

    def write(self, data: Any) -> int:
        self._check_open()
        if not self._writable:
            raise io.UnsupportedOperation("write")
        chunk = bytes(memoryview(data).cast("B"))
        data_now = self._node.data
        if self._append:
            self._position = len(data_now)
        end = self._position + len(chunk)
        if end > len(data_now):
            TREE.resize(self._node, end)
            data_now.extend(bytes(end - len(data_now)))
        data_now[self._position : end] = chunk
        self._position = end
        return len(chunk)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._check_open()
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: len(self._node.data)}.get(whence)
        if base is None:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if base + offset < 0:
            raise os_error(errno.EINVAL, self.name)
        self._position = base + offset
        return self._position

    def tell(self) -> int:
        self._check_open()
        return self._position

    def truncate(self, size: int | None = None) -> int:
        self._check_open()
        if not self._writable:
            raise io.UnsupportedOperation("truncate")
        size = self._position if size is None else size
        data_now = self._node.data
        TREE.resize(self._node, size)
        if size < len(data_now):
            del data_now[size:]
        else:
            data_now.extend(bytes(size - len(data_now)))
        return size

    def close(self) -> None:
        if not self.closed and self._delete is not None:
            with contextlib.suppress(FileNotFoundError):  # the tool removed it already
                TREE.remove(self._delete, directory=False)
        super().close()

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("I/O operation on closed file.")


def open_raw(path: Any, mode: str, *, delete: bool = False) -> ScratchRaw:
    """A raw stream on the scratch file ``path`` opened with ``mode``'s r/w/a/x and ``+``."""
    text = exact_path(path)
    kind = mode.replace("b", "").replace("t", "").replace("+", "")
    node = TREE.find(text)
    if node is not None and node.is_dir:
        raise os_error(errno.EISDIR, path)
    if kind == "r":
        if node is None:
            TREE.node(text)  # the error CPython gives: not found, or not a directory on the way
            raise os_error(errno.ENOENT, path)
    elif kind == "x" and node is not None:
        raise os_error(errno.EEXIST, path)
    elif node is None:
        node = TREE.add(text, directory=False)
    else:
        TREE.parent(text)  # writing outside the scratch directory is refused, even to a file there
        if kind == "w":
            TREE.resize(node, 0)
            del node.data[:]
    raw_mode = {"r": "rb", "w": "wb", "a": "ab", "x": "xb"}[kind] + ("+" if "+" in mode else "")
    return ScratchRaw(node, path, raw_mode, append=kind == "a", delete=text if delete else None)


def _checked_mode(mode: Any) -> str:
    if not isinstance(mode, str):
        raise TypeError(f"open() argument 'mode' must be str, not {type(mode).__name__}")
    mode = "".join((mode,))
    if set(mode) - _MODE_LETTERS or len(set(mode)) != len(mode):
        raise ValueError(f"invalid mode: '{mode}'")
    if "b" in mode and "t" in mode:
        raise ValueError("can't have text and binary mode at once")
    if sum(mode.count(letter) for letter in "rwax") != 1:
        raise ValueError("must have exactly one of create/read/write/append mode")
    return mode


def open_file(
    file: Any,
    mode: str = "r",
    buffering: int = -1,
    encoding: str | None = None,
    errors: str | None = None,
    newline: str | None = None,
    closefd: bool = True,
    opener: Any = None,
) -> Any:
    """``open`` over the scratch tree (or one of this call's descriptors), with CPython's file objects."""
    mode = _checked_mode(mode)
    if opener is not None:
        raise ValueError("toolpen's open takes no opener: scratch files have no file descriptors")
    binary = "b" in mode
    if binary and (encoding is not None or errors is not None or newline is not None):
        raise ValueError("binary mode doesn't take an encoding, errors or newline argument")
    # an int (a subclass too, as CPython takes True) is a descriptor, read as an exact int
    raw = DESCRIPTORS.raw(int.__int__(file)) if isinstance(file, int) else open_raw(file, mode)
    return wrap(raw, mode, buffering, encoding, errors, newline)


def wrap(raw: ScratchRaw, mode: str, buffering: int, encoding: Any, errors: Any, newline: Any) -> Any:
    """The buffered and text layers ``io.open`` puts over a raw stream."""
    binary = "b" in mode
    if buffering == 0:
        if not binary:
            raise ValueError("can't have unbuffered text I/O")
        return raw
    size = io.DEFAULT_BUFFER_SIZE if buffering < 0 or buffering == 1 else buffering
    layer: type[io.BufferedIOBase]
    if "+" in mode:
        layer = io.BufferedRandom
    elif "r" in mode:
        layer = io.BufferedReader
    else:
        layer = io.BufferedWriter
    buffered: Any = layer(raw, size)  # type: ignore[call-arg]
    if binary:
        return buffered
    encoding = "utf-8" if encoding in (None, "locale") else encoding
    text = io.TextIOWrapper(buffered, encoding, errors, newline, line_buffering=buffering == 1)
    text.mode = mode  # type: ignore[misc]  # as io.open sets it
    return text


class Descriptors:
    """This call's descriptor table: numbers standing for open scratch files (``os.open``, ``mkstemp``)."""

    FIRST = 3

    def __init__(self) -> None:
        self.reset(0)

    def reset(self, limit: int) -> None:
        """No descriptors, and at most ``limit`` open at once (``Limits.open_files``, as the rlimit is)."""
        self.table: dict[int, ScratchRaw] = {}
        self.limit = limit

    def add(self, raw: ScratchRaw) -> int:
        self.table = {
            number: held for number, held in self.table.items() if not held.closed
        }  # fdopen's, closed
        if len(self.table) >= self.limit:
            raw.close()
            raise OSError(errno.EMFILE, f"{os.strerror(errno.EMFILE)} (Limits.open_files: {self.limit})")
        number = self.FIRST
        while number in self.table:
            number += 1
        self.table[number] = raw
        return number

    def raw(self, number: int) -> ScratchRaw:
        raw = self.table.get(number)
        if raw is None or raw.closed:
            raise OSError(
                errno.EBADF,
                f"{os.strerror(errno.EBADF)}: toolpen tools have only the descriptors os.open and"
                f" tempfile.mkstemp gave them (files in {SCRATCH})",
            )
        return raw

    def close(self, number: int) -> None:
        self.raw(number).close()
        del self.table[number]


DESCRIPTORS = Descriptors()
"""The descriptors of this process's current call."""


def open_descriptor(path: Any, flags: int, mode: int = 0o777) -> int:
    """``os.open``: a descriptor of this call on a scratch file."""
    access = flags & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR)
    letters = {os.O_RDONLY: "r", os.O_WRONLY: "w", os.O_RDWR: "r+"}.get(access, "r")
    text = exact_path(path)
    exists = TREE.find(text) is not None
    if flags & os.O_CREAT and flags & os.O_EXCL and exists:
        raise os_error(errno.EEXIST, path)
    if not exists and not flags & os.O_CREAT:
        raise os_error(errno.ENOENT, path)
    if not exists:
        TREE.add(text, directory=False)
    raw = open_raw(text, "r+" if letters != "r" else "r")
    raw._append = bool(flags & os.O_APPEND)
    raw._readable = letters != "w"
    if flags & os.O_TRUNC:
        raw.truncate(0)
    return DESCRIPTORS.add(raw)


def fdopen(
    fd: int, mode: str = "r", buffering: int = -1, encoding: Any = None, *args: Any, **kwargs: Any
) -> Any:
    """``os.fdopen``: a file object on one of this call's descriptors."""
    if type(fd) is not int:
        raise TypeError(f"expected an int file descriptor, not {type(fd).__name__}")
    return open_file(fd, mode, buffering, encoding, *args, **kwargs)


class _FileTypeMeta(type):
    """The class of a file object as tool code has it: ``isinstance``/``issubclass`` as the real one, no constructor."""

    _real: type

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        refuse(f"{cls.__name__}(...) is not available in toolpen: files are made by open() and tempfile")

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls._real)

    def __subclasscheck__(cls, subclass: type) -> bool:
        return isinstance(subclass, type) and issubclass(subclass, cls._real)


def _stand_in(real: type) -> type:
    module = "io" if real is ScratchRaw else "_io"
    stand_in = _FileTypeMeta(real.__name__, (), {"__slots__": (), "__module__": module, "_real": real})
    stand_in.__qualname__ = real.__name__
    return stand_in


_REAL_FILE_TYPES: tuple[type, ...] = (
    io.BufferedReader,
    io.BufferedWriter,
    io.BufferedRandom,
    io.TextIOWrapper,
    ScratchRaw,
)
FILE_TYPES: dict[type, type] = {real: _stand_in(real) for real in _REAL_FILE_TYPES}
TYPE_STAND_INS.update(FILE_TYPES)
