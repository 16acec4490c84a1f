"""``sys.stdout`` and ``sys.stderr`` as tool code sees them: text written goes to the call's log.

Under the language wall they are what the ``sys`` view offers; under ``walls="process"`` the worker
sets them as the real ``sys.stdout``/``sys.stderr`` for the call. Either way ``print(..., file=
sys.stdout)`` and ``sys.stdout.write(...)`` land where ``print`` does: the log the call returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class _Log(Protocol):
    def write(self, text: str) -> None: ...


class _Discard:
    def write(self, text: str) -> None:
        """Nothing: no call is running."""


_log: list[_Log] = [_Discard()]


def route(log: _Log) -> None:
    """Send what the streams are given from now on to ``log`` (the current call's output)."""
    _log[0] = log


class CallStream:
    """A write-only text stream into the current call's log."""

    __slots__ = ("name",)
    name: str
    encoding = "utf-8"
    errors = "strict"

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "name", name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{self.name} is read-only")

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        _log[0].write(text)  # the log keeps an exact copy of the characters (OutputCapture.write)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Nothing to flush: the log is in memory."""

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"<toolpen stream {self.name}>"


STDOUT = CallStream("<stdout>")
STDERR = CallStream("<stderr>")
