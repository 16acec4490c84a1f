"""The ``glob`` view: CPython's ``glob`` over the call's scratch directory.

The functions are CPython's own (their code, so the same matches, order, hidden-file and ``**``
rules), bound to globals in which ``os`` is the ``os`` view (``os_view``: the scratch tree) instead
of the real module: a pattern can only match what the call wrote, never the host's files.
``dir_fd`` is refused (the scratch directory has no real file descriptors); ``root_dir`` works.
"""

from __future__ import annotations

import glob
import posixpath
import types
from typing import Any

from sandbox.language import os_view
from sandbox.language.rebound import rebound

_OS_NAMES = ("curdir", "fspath", "fsencode", "scandir", "stat", "lstat")
_OS = types.SimpleNamespace(
    **{name: os_view.OS_MEMBERS[name] for name in _OS_NAMES},
    path=types.SimpleNamespace(
        join=posixpath.join,
        split=posixpath.split,
        splitdrive=posixpath.splitdrive,
        lexists=os_view.PATH_MEMBERS["lexists"],
        isdir=os_view.PATH_MEMBERS["isdir"],
    ),
)
"""What CPython's glob functions use of ``os``, from the os view (``dir_fd``'s ``open``/``close`` are not there)."""


def _rebound() -> dict[str, Any]:
    """Each function of CPython's glob, its code bound to a namespace whose ``os`` is ``_OS``."""
    namespace = dict(vars(glob), os=_OS)
    for name, value in vars(glob).items():
        if isinstance(value, types.FunctionType):
            namespace[name] = rebound(value, namespace)
    return namespace


_GLOB = _rebound()


def _no_dir_fd(dir_fd: Any) -> None:
    if dir_fd is not None:
        raise NotImplementedError("dir_fd: the scratch directory has no file descriptors; use root_dir")


def glob_(pathname: Any, *, root_dir: Any = None, dir_fd: Any = None, **options: Any) -> list[Any]:
    """``glob.glob`` in the scratch directory."""
    _no_dir_fd(dir_fd)
    return _GLOB["glob"](pathname, root_dir=root_dir, **options)  # type: ignore[no-any-return]


def iglob(pathname: Any, *, root_dir: Any = None, dir_fd: Any = None, **options: Any) -> Any:
    """``glob.iglob`` in the scratch directory."""
    _no_dir_fd(dir_fd)
    return _GLOB["iglob"](pathname, root_dir=root_dir, **options)


glob_.__name__ = glob_.__qualname__ = "glob"
MEMBERS: dict[str, Any] = {"glob": glob_, "iglob": iglob, "escape": glob.escape, "has_magic": glob.has_magic}


def members(name: str) -> dict[str, Any]:
    """The members of the view of ``glob``."""
    return dict(MEMBERS)


def left_out(module: str, member: str) -> str | None:
    """Why the view leaves ``member`` out: CPython's undocumented helpers."""
    return "the view offers glob, iglob, escape and has_magic"
