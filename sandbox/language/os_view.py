"""The ``os`` and ``os.path`` views: the call's scratch directory and environment, nothing of the process.

File functions work on the scratch tree (``scratch_fs``); ``os.environ``/``os.getenv`` read the
call's environment (``ENVIRON``: what the host configured with ``Runtime(tool_environment=...)``,
else empty); the pure
string functions of ``os.path`` and the constants are CPython's own. What reaches the process
(``system``, ``fork``, ``exec*``, ``kill``, ``chdir`` out of the scratch directory, links, real
descriptors, the process's identity and limits) is left out, each with the reason its
``AttributeError`` gives (``LEFT_OUT``). Built by ``modules.py`` as a view (``LIBRARY_VIEWS``).
"""

from __future__ import annotations

import errno
import os
import posixpath
import re
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from sandbox.language.scratch_files import DESCRIPTORS, fdopen, open_descriptor
from sandbox.language.scratch_fs import SCRATCH, TREE, Node, exact_path, os_error, stat_of


class CallEnvironment(MutableMapping[str, str]):
    """``os.environ`` of the call: str keys and values, the host's configured ones at the start of each call."""

    __slots__ = ("_values",)

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def reset(self, values: dict[str, str]) -> None:
        self._values = dict(values)

    def __getitem__(self, key: str) -> str:
        return self._values[_checked_str(key, "key")]

    def __setitem__(self, key: str, value: str) -> None:
        self._values[_checked_str(key, "key")] = _checked_str(value, "value")

    def __delitem__(self, key: str) -> None:
        del self._values[_checked_str(key, "key")]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._values))

    def __len__(self) -> int:
        return len(self._values)

    def copy(self) -> dict[str, str]:
        return dict(self._values)

    def __repr__(self) -> str:
        return f"environ({self._values!r})"


def _checked_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"str expected, not {type(value).__name__}")
    return "".join((value,))


ENVIRON = CallEnvironment()
"""The environment of this process's current call."""


def getenv(key: str, default: Any = None) -> Any:
    return ENVIRON.get(key, default)


# -- files and directories ----------------------------------------------------------------------
def getcwd() -> str:
    return TREE.cwd


def chdir(path: Any) -> None:
    text = exact_path(path)
    TREE.directory(text)
    full = TREE.absolute(text)
    if full != SCRATCH and not full.startswith(SCRATCH + "/"):
        raise PermissionError(
            errno.EACCES, f"Permission denied: a tool's working directory stays inside {SCRATCH}", path
        )
    TREE.cwd = full


def listdir(path: Any = ".") -> list[Any]:
    names = list(_children(path))
    return [os.fsencode(name) for name in names] if isinstance(path, bytes) else names


def _children(path: Any) -> dict[str, Node]:
    children = TREE.directory(exact_path(path)).children
    assert children is not None
    return children


def mkdir(path: Any, mode: int = 0o777, *, dir_fd: None = None) -> None:
    TREE.add(exact_path(path), directory=True)


def makedirs(name: Any, mode: int = 0o777, exist_ok: bool = False) -> None:
    text = TREE.absolute(exact_path(name))
    head = posixpath.dirname(text)
    if head != text and TREE.find(head) is None:
        makedirs(head, mode, exist_ok=True)
    try:
        TREE.add(text, directory=True)
    except FileExistsError:
        node = TREE.find(text)
        if not exist_ok or node is None or not node.is_dir:
            raise


def remove(path: Any, *, dir_fd: None = None) -> None:
    TREE.remove(exact_path(path), directory=False)


def rmdir(path: Any, *, dir_fd: None = None) -> None:
    TREE.remove(exact_path(path), directory=True)


def removedirs(name: Any) -> None:
    text = TREE.absolute(exact_path(name))
    rmdir(text)
    head = posixpath.dirname(text)
    while head not in ("/", SCRATCH):
        try:
            rmdir(head)
        except OSError:
            break
        head = posixpath.dirname(head)


def rename(src: Any, dst: Any) -> None:
    TREE.rename(exact_path(src), exact_path(dst))


def stat(path: Any, *, dir_fd: None = None, follow_symlinks: bool = True) -> os.stat_result:
    if type(path) is int:
        raise os_error(errno.EBADF, None)
    return stat_of(TREE.node(exact_path(path)))


def access(path: Any, mode: int, **options: Any) -> bool:
    node = TREE.find(exact_path(path))
    if node is None:
        return False
    full = TREE.absolute(exact_path(path))
    return not mode & os.W_OK or full == SCRATCH or full.startswith(SCRATCH + "/")


def utime(path: Any, times: tuple[float, float] | None = None, **options: Any) -> None:
    import time  # noqa: PLC0415 - time is loaded already: a name lookup

    TREE.node(exact_path(path)).mtime = time.time() if times is None else float(times[1])


def truncate(path: Any, length: int) -> None:
    node = TREE.node(exact_path(path))
    if node.is_dir:
        raise os_error(errno.EISDIR, path)
    TREE.resize(node, length)
    del node.data[length:]
    node.data.extend(bytes(length - len(node.data)))


class ScratchDirEntry:
    """What ``os.scandir`` yields: ``os.DirEntry``'s attributes and methods."""

    __slots__ = ("name", "path", "_node")

    def __init__(self, name: Any, path: Any, node: Node) -> None:
        self.name = name
        self.path = path
        self._node = node

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return self._node.is_dir

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return not self._node.is_dir

    def is_symlink(self) -> bool:
        return False

    def is_junction(self) -> bool:
        return False

    def inode(self) -> int:
        return self._node.inode

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return stat_of(self._node)

    def __fspath__(self) -> Any:
        return self.path

    def __repr__(self) -> str:
        return f"<DirEntry {self.name!r}>"


class ScandirIterator:
    """``os.scandir``'s iterator, a context manager too."""

    __slots__ = ("_entries",)

    def __init__(self, entries: list[ScratchDirEntry]) -> None:
        self._entries = iter(entries)

    def __iter__(self) -> ScandirIterator:
        return self

    def __next__(self) -> ScratchDirEntry:
        return next(self._entries)

    def __enter__(self) -> ScandirIterator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._entries = iter(())


def scandir(path: Any = ".") -> ScandirIterator:
    base = os.fspath(path)
    entries = [
        ScratchDirEntry(name, posixpath.join(base, name), node)
        for name, node in list(_children(path).items())
    ]
    if isinstance(base, bytes):
        entries = [ScratchDirEntry(os.fsencode(e.name), os.fsencode(e.path), e._node) for e in entries]
    return ScandirIterator(entries)


def walk(top: Any, topdown: bool = True, onerror: Any = None, followlinks: bool = False) -> Iterator[Any]:
    """``os.walk`` over the scratch tree, with CPython's order and its in-place pruning of ``dirnames``."""
    top = os.fspath(top)
    try:
        entries = list(scandir(top))
    except OSError as error:
        if onerror is not None:
            onerror(error)
        return
    dirs = [entry.name for entry in entries if entry.is_dir()]
    files = [entry.name for entry in entries if not entry.is_dir()]
    if topdown:
        yield top, dirs, files
    for name in dirs:
        yield from walk(posixpath.join(top, name), topdown, onerror, followlinks)
    if not topdown:
        yield top, dirs, files


# -- descriptors of this call -----------------------------------------------------------------
def close(fd: int) -> None:
    DESCRIPTORS.close(fd)


def read(fd: int, n: int) -> bytes:
    return DESCRIPTORS.raw(fd).read(n) or b""


def write(fd: int, data: Any) -> int:
    return DESCRIPTORS.raw(fd).write(data)


def lseek(fd: int, position: int, whence: int) -> int:
    return DESCRIPTORS.raw(fd).seek(position, whence)


def fstat(fd: int) -> os.stat_result:
    return stat_of(DESCRIPTORS.raw(fd)._node)


# -- os.path over the tree ----------------------------------------------------------------------
def _path_test(test: Callable[[Node], bool]) -> Callable[[Any], bool]:
    def check(path: Any) -> bool:
        try:
            node = TREE.find(exact_path(path))
        except (ValueError, TypeError):
            return False
        return node is not None and test(node)

    return check


exists = _path_test(lambda node: True)
isfile = _path_test(lambda node: not node.is_dir)
isdir = _path_test(lambda node: node.is_dir)
exists.__name__, isfile.__name__, isdir.__name__ = "exists", "isfile", "isdir"


def islink(path: Any) -> bool:
    return False


def ismount(path: Any) -> bool:
    return TREE.absolute(exact_path(path)) == "/"


def abspath(path: Any) -> Any:
    value = os.fspath(path)
    if isinstance(value, bytes):
        return os.fsencode(TREE.absolute(exact_path(value)))
    return TREE.absolute(exact_path(value))


def realpath(path: Any, *, strict: bool = False) -> Any:
    if strict:
        stat(path)
    return abspath(path)  # no links in the scratch tree


def relpath(path: Any, start: Any = None) -> Any:
    if not path:
        raise ValueError("no path specified")
    value = os.fspath(path)
    start = (b"." if isinstance(value, bytes) else ".") if start is None else start
    return posixpath.relpath(abspath(value), abspath(start))


def getsize(path: Any) -> int:
    return stat(path).st_size


def getmtime(path: Any) -> float:
    return stat(path).st_mtime


def samefile(first: Any, second: Any) -> bool:
    return stat(first).st_ino == stat(second).st_ino


def expanduser(path: Any) -> Any:
    value = os.fspath(path)
    tilde = b"~" if isinstance(value, bytes) else "~"
    if not value.startswith(tilde) or (len(value) > 1 and value[1:2] not in (b"/", "/")):
        return value
    home = ENVIRON.get("HOME", SCRATCH)
    return (os.fsencode(home) if isinstance(value, bytes) else home) + value[1:]


_VARIABLE = re.compile(r"\$(\w+|\{[^}]*\})", re.ASCII)


def expandvars(path: Any) -> Any:
    value = os.fspath(path)
    if isinstance(value, bytes):
        return os.fsencode(expandvars(os.fsdecode(value)))

    def replace(match: re.Match[str]) -> str:
        name = match.group(1).strip("{}")
        return ENVIRON.get(name, match.group(0))

    return _VARIABLE.sub(replace, value)


_PATH_CONSTANTS = ("sep", "altsep", "extsep", "pathsep", "curdir", "pardir", "defpath", "devnull")
"""What ``os`` and ``os.path`` both have, CPython's values."""
_PURE_PATH_NAMES = (
    *_PATH_CONSTANTS,
    *("basename", "commonpath", "commonprefix", "dirname", "isabs", "join", "normcase", "normpath"),
    *("split", "splitdrive", "splitext", "samestat", "supports_unicode_filenames"),
)
PATH_MEMBERS: dict[str, Any] = {name: getattr(posixpath, name) for name in _PURE_PATH_NAMES} | {
    "exists": exists,
    "lexists": exists,
    "isfile": isfile,
    "isdir": isdir,
    "islink": islink,
    "ismount": ismount,
    "abspath": abspath,
    "realpath": realpath,
    "relpath": relpath,
    "getsize": getsize,
    "getmtime": getmtime,
    "getatime": getmtime,
    "getctime": getmtime,
    "samefile": samefile,
    "expanduser": expanduser,
    "expandvars": expandvars,
}

_CONSTANTS = (
    *_PATH_CONSTANTS,
    *("linesep", "name", "SEEK_SET", "SEEK_CUR", "SEEK_END", "F_OK", "R_OK", "W_OK", "X_OK"),
    *("O_RDONLY", "O_WRONLY", "O_RDWR", "O_APPEND", "O_CREAT", "O_EXCL", "O_TRUNC"),
)
OS_MEMBERS: dict[str, Any] = {name: getattr(os, name) for name in _CONSTANTS} | {
    # values and pure functions of CPython's own
    "fspath": os.fspath,
    "fsencode": os.fsencode,
    "fsdecode": os.fsdecode,
    "PathLike": os.PathLike,
    "stat_result": os.stat_result,
    "error": OSError,
    "strerror": os.strerror,
    "urandom": os.urandom,
    "getpid": os.getpid,
    # the call's environment
    "environ": ENVIRON,
    "getenv": getenv,
    # the scratch directory
    "getcwd": getcwd,
    "chdir": chdir,
    "listdir": listdir,
    "scandir": scandir,
    "walk": walk,
    "mkdir": mkdir,
    "makedirs": makedirs,
    "remove": remove,
    "unlink": remove,
    "rmdir": rmdir,
    "removedirs": removedirs,
    "rename": rename,
    "replace": rename,
    "stat": stat,
    "lstat": stat,
    "access": access,
    "utime": utime,
    "truncate": truncate,
    "open": open_descriptor,
    "fdopen": fdopen,
    "close": close,
    "read": read,
    "write": write,
    "lseek": lseek,
    "fstat": fstat,
}

_PROCESS = "it reaches the process (toolpen tools run in a process that may not start or signal others)"
_LINKS = "the scratch directory has no links: copy the file (open / write) instead"
_IDENTITY = "it reads or changes the process's identity or limits, which a tool does not have"
LEFT_OUT: dict[str, str] = {
    **dict.fromkeys(
        (
            "system",
            "popen",
            "fork",
            "forkpty",
            "spawnl",
            "spawnle",
            "spawnlp",
            "spawnlpe",
            "spawnv",
            "spawnve",
            "spawnvp",
            "spawnvpe",
            "posix_spawn",
            "posix_spawnp",
            "execl",
            "execle",
            "execlp",
            "execlpe",
            "execv",
            "execve",
            "execvp",
            "execvpe",
            "kill",
            "killpg",
            "wait",
            "waitpid",
            "wait3",
            "wait4",
            "waitid",
            "abort",
            "_exit",
            "pidfd_open",
            "register_at_fork",
        ),
        f"{_PROCESS}; call another tool with tools.<name>(...)",
    ),
    **dict.fromkeys(("symlink", "link", "readlink", "lchown", "lchmod"), _LINKS),
    **dict.fromkeys(
        (
            "chroot",
            "fchdir",
            "setuid",
            "setgid",
            "seteuid",
            "setegid",
            "setgroups",
            "setsid",
            "setpgid",
            "nice",
            "chown",
            "fchown",
            "chmod",
            "fchmod",
            "umask",
            "getuid",
            "geteuid",
            "getgid",
            "getegid",
            "getppid",
            "getlogin",
            "getloadavg",
            "uname",
            "times",
        ),
        _IDENTITY,
    ),
    **dict.fromkeys(
        ("dup", "dup2", "pipe", "pipe2", "openpty", "sendfile", "memfd_create", "eventfd", "mkfifo", "mknod"),
        "it makes real file descriptors; toolpen's files are those of the scratch directory: use open()",
    ),
    **dict.fromkeys(
        ("putenv", "unsetenv", "environb", "getenvb"),
        "the call's environment is os.environ: read and write it there",
    ),
    "statvfs": "the scratch directory is in memory; its size is Limits.scratch_size",
}


def members(name: str) -> dict[str, Any]:
    """The members of the ``os`` or ``os.path`` view (``modules.py`` adds ``os.path`` to ``os``)."""
    return dict(PATH_MEMBERS if name == "os.path" else OS_MEMBERS)


def left_out(module: str, member: str) -> str | None:
    """Why the view leaves ``member`` out, if it says."""
    return LEFT_OUT.get(member) if module == "os" else None
