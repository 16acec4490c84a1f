"""The subprocess view: the module imports, and every way to start a process fails as a jailed fork does.

A worker may not start processes (the jail's seccomp program and RLIMIT_NPROC refuse fork and
exec). CPython reports such a failure as an ``OSError`` from ``Popen``; here every function and
``Popen`` raise ``PermissionError`` (errno ``EPERM``) saying so, before anything is attempted, so
``except OSError`` and ``except PermissionError`` catch it as real code writes them. The module's
exception classes, ``CompletedProcess``, ``PIPE``/``STDOUT``/``DEVNULL`` and ``list2cmdline`` are the
real ones.
"""

from __future__ import annotations

import errno
import subprocess
from typing import Any, NoReturn

FORBIDDEN = "Operation not permitted: the sandbox forbids starting processes"
_REAL = (
    "SubprocessError",
    "CalledProcessError",
    "TimeoutExpired",
    "CompletedProcess",
    "PIPE",
    "STDOUT",
    "DEVNULL",
    "list2cmdline",
)


def _program(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """The program a call names (its first argument, or the first word of it), for the error's text."""
    command = kwargs.get("args", args[0] if args else None)
    if isinstance(command, str):
        return command.split(maxsplit=1)[0] if command.strip() else command
    if isinstance(command, list | tuple) and command and isinstance(command[0], str):
        return command[0]
    return None


def _forbidden(args: tuple[Any, ...], kwargs: dict[str, Any]) -> NoReturn:
    program = _program(args, kwargs)
    if program is None:
        raise PermissionError(errno.EPERM, FORBIDDEN)
    raise PermissionError(errno.EPERM, FORBIDDEN, program)


class Popen:
    """``subprocess.Popen``: starting the process fails, as it does in a process that may not fork."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _forbidden(args, kwargs)


def _starter(name: str) -> Any:
    def start(*args: Any, **kwargs: Any) -> NoReturn:
        _forbidden(args, kwargs)

    start.__name__ = start.__qualname__ = name
    start.__doc__ = f"``subprocess.{name}``: fails with ``PermissionError`` (EPERM): no process may start."
    return start


STARTERS = {
    name: _starter(name)
    for name in ("run", "call", "check_call", "check_output", "getoutput", "getstatusoutput")
}


def members(name: str) -> dict[str, Any]:
    """The members of the view of ``subprocess``."""
    return {member: getattr(subprocess, member) for member in _REAL} | STARTERS | {"Popen": Popen}


def left_out(module: str, member: str) -> str | None:
    """Why the view leaves out ``member``: the rest of the module is about processes that cannot start."""
    return "the view holds the ways to start a process (each fails: no process may start) and their classes"
