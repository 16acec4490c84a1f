"""The call's scratch directory: an in-memory file tree that the ``os``, ``pathlib``, ``tempfile``
and ``open`` views read and write, and nothing else.

Why in memory, not real files in the jail's ``/tmp``: that tmpfs is one per pool, shared by every
worker of it under the same uid, and the worker's seccomp filter refuses every system call that
creates, writes or removes a file (``jail.SYSCALLS``). A tree held in the worker's own memory
needs no system call at all, ends with the single-use worker, and no other call (concurrent or
next) can see it. The views never call the real ``os`` on a path: outside ``/tmp`` nothing
exists, so ``/proc/self/mem``, ``/etc/passwd`` or another call's files are simply not found.

Paths are made exact ``str`` (``exact_path``) whatever the tool hands in (a ``str`` subclass, an
``os.PathLike`` of its own, bytes), then resolved lexically: there are no links, so ``..`` and
absolute paths can only name places in this tree. Size and file count are capped by the call's
``Limits.scratch_size`` and ``Limits.scratch_files``: past them a write fails with ``OSError``
(``ENOSPC``) naming the limit.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
import time
from dataclasses import dataclass, field
from typing import Any

NAME_MAX = 255  # bytes in one name, as Linux allows
PATH_MAX = 4096
SCRATCH = "/tmp"
"""The call's scratch directory: its working directory and ``tempfile.gettempdir()``."""


@dataclass
class Node:
    """A directory (``children`` set) or a regular file (``data``)."""

    inode: int
    children: dict[str, Node] | None = None
    data: bytearray = field(default_factory=bytearray)
    mtime: float = field(default_factory=time.time)

    @property
    def is_dir(self) -> bool:
        return self.children is not None


class ScratchTree:
    """The one tree of this process, emptied at the start of each call (``reset``)."""

    def __init__(self) -> None:
        self.reset(0, 0)

    def reset(self, size_limit: int, file_limit: int) -> None:
        """An empty scratch directory for a new call, with that call's limits."""
        self.size_limit = size_limit
        self.file_limit = file_limit
        self.size = 0
        self.count = 0
        self._inodes = 1
        self.root = Node(1, children={})
        self.root.children["tmp"] = Node(2, children={})  # type: ignore[index]
        self.cwd = SCRATCH

    # -- paths ---------------------------------------------------------------------------------
    def absolute(self, path: str) -> str:
        """``path`` made absolute against the working directory and normalized (no links exist)."""
        return posixpath.normpath(posixpath.join(self.cwd, path))

    def find(self, path: str) -> Node | None:
        """The node at ``path``, or None."""
        node = self.root
        for part in self.absolute(path).split("/"):
            if not part:
                continue
            if node.children is None or part not in node.children:
                return None
            node = node.children[part]
        return node

    def node(self, path: str) -> Node:
        """The node at ``path``; FileNotFoundError (NotADirectoryError on the way) otherwise."""
        node = self.root
        for part in self.absolute(path).split("/"):
            if not part:
                continue
            if node.children is None:
                raise os_error(errno.ENOTDIR, path)
            if part not in node.children:
                raise os_error(errno.ENOENT, path)
            node = node.children[part]
        return node

    def directory(self, path: str) -> Node:
        node = self.node(path)
        if not node.is_dir:
            raise os_error(errno.ENOTDIR, path)
        return node

    def parent(self, path: str) -> tuple[dict[str, Node], str]:
        """The writable directory holding ``path`` and the name in it; refused outside the scratch directory."""
        full = self.absolute(path)
        if not full.startswith(SCRATCH + "/"):  # the scratch directory itself stays
            raise PermissionError(
                errno.EACCES,
                f"Permission denied: toolpen tools write only inside their scratch directory {SCRATCH}",
                path,
            )
        head, name = posixpath.split(full)
        if len(name.encode("utf-8", "surrogateescape")) > NAME_MAX or len(full) > PATH_MAX:
            raise os_error(errno.ENAMETOOLONG, path)  # Linux's limits: names count toward no other
        try:
            children = self.directory(head).children
        except OSError as error:  # CPython names the path given, not its directory
            raise os_error(error.errno or errno.ENOENT, path) from None
        assert children is not None
        return children, name

    # -- changes -------------------------------------------------------------------------------
    def add(self, path: str, *, directory: bool) -> Node:
        """A new empty file or directory at ``path``; FileExistsError if there is one."""
        if self.find(path) is not None:  # before the scratch check, as CPython answers for "/" or "."
            raise os_error(errno.EEXIST, path)
        children, name = self.parent(path)
        if name in children or not name:
            raise os_error(errno.EEXIST, path)
        self.count_one()
        self._inodes += 1
        node = Node(self._inodes, children={} if directory else None)
        children[name] = node
        return node

    def remove(self, path: str, *, directory: bool) -> None:
        children, name = self.parent(path)
        node = children.get(name)
        if node is None:
            raise os_error(errno.ENOENT, path)
        if directory and not node.is_dir:
            raise os_error(errno.ENOTDIR, path)
        if not directory and node.is_dir:
            raise os_error(errno.EISDIR, path)
        if directory and node.children:
            raise os_error(errno.ENOTEMPTY, path)
        if directory and self.absolute(path) == self.cwd:
            raise os_error(errno.EBUSY, path)
        del children[name]
        self.count -= 1
        self.size -= len(node.data)

    def rename(self, source: str, target: str, *, replace: bool = True) -> None:
        source_children, source_name = self.parent(source)
        node = source_children.get(source_name)
        if node is None:
            raise os_error(errno.ENOENT, source)
        target_children, target_name = self.parent(target)
        if self.absolute(target).startswith(self.absolute(source) + "/"):
            raise os_error(errno.EINVAL, source)
        existing = target_children.get(target_name)
        if existing is not None and existing is not node:
            if not replace or existing.is_dir != node.is_dir or existing.children:
                raise os_error(errno.EEXIST if not replace else _replace_errno(existing), target)
            self.count -= 1
            self.size -= len(existing.data)
        del source_children[source_name]
        target_children[target_name] = node

    def count_one(self) -> None:
        if self.count >= self.file_limit:
            raise OSError(
                errno.ENOSPC,
                f"the call's scratch directory holds at most {self.file_limit} files and directories"
                " (Limits.scratch_files)",
            )
        self.count += 1

    def resize(self, node: Node, new_size: int) -> None:
        """Account for ``node`` growing or shrinking to ``new_size`` bytes, refusing past the limit."""
        grown = self.size + new_size - len(node.data)
        if grown > self.size_limit:
            raise OSError(
                errno.ENOSPC,
                f"the call's scratch directory holds at most {self.size_limit} bytes (Limits.scratch_size)",
            )
        self.size = grown
        node.mtime = time.time()


def _replace_errno(existing: Node) -> int:
    return errno.ENOTEMPTY if existing.children else (errno.EISDIR if existing.is_dir else errno.ENOTDIR)


TREE = ScratchTree()
"""The tree of this process's current call."""


def os_error(code: int, path: object) -> OSError:
    """The ``OSError`` subclass CPython raises for ``code`` on ``path`` (FileNotFoundError, ...)."""
    return OSError(code, os.strerror(code), path)


def exact_path(path: Any) -> str:
    """``path`` (str, bytes or os.PathLike) as an exact ``str``: never a subclass whose methods the tool wrote."""
    value = os.fspath(path)
    if isinstance(value, bytes):
        value = os.fsdecode(b"".join((value,)))
    text = "".join((value,))  # an exact str, built from the characters alone
    if "\0" in text:
        raise ValueError("embedded null byte")
    return text


def stat_of(node: Node) -> os.stat_result:
    """What ``os.stat`` answers for ``node``."""
    mode = (stat.S_IFDIR | 0o755) if node.is_dir else (stat.S_IFREG | 0o644)
    size = 4096 if node.is_dir else len(node.data)
    nlink = 2 if node.is_dir else 1
    when = node.mtime
    return os.stat_result(
        (mode, node.inode, 1, nlink, 65534, 65534, size, int(when), int(when), int(when), when, when, when)
    )
