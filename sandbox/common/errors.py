"""The error kinds of toolpen, in one place.

Every failure a user or a model can see is a :class:`ToolpenError` with a stable ``kind``
string; catch the base class for the whole family or a subclass for one case. Messages name
the tool's own line numbers, never host paths.
"""

from __future__ import annotations

from typing import Any, ClassVar


class ToolpenError(Exception):
    """Base of every structured toolpen error."""

    kind: ClassVar[str] = "internal"

    def __init__(self, message: str, *, line: int | None = None, col: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of this error: ``{"kind", "message"}`` plus the location when known.

        Built from what tool code cannot have changed (a worker reports a toolpen error a tool may
        have caught, changed and raised again): the kind is the class's, the message a plain
        ``str`` copy, the location only when it is an ``int``; so the shape neither says what did
        not happen nor keeps an object of the tool's alive.
        """
        message = self.message
        data: dict[str, Any] = {
            "kind": type(self).kind,
            "message": str.__getitem__(message, slice(None)) if isinstance(message, str) else "(no message)",
        }
        for key, value in (("line", self.line), ("col", self.col)):
            if type(value) is int:
                data[key] = value
        return data


class InvalidSource(ToolpenError):
    """The tool source cannot be used: unreadable, a syntax error, no entry function."""

    kind = "invalid_source"


class PolicyViolation(ToolpenError):
    """The code does something the sandbox policy refuses (checked at compile or run time)."""

    kind = "policy"


class InvalidArguments(ToolpenError):
    """The arguments do not match the tool's schema."""

    kind = "invalid_arguments"


class ToolFailed(ToolpenError):
    """The tool's own code raised an exception."""

    kind = "tool_error"


class Timeout(ToolpenError):
    """The call ran past its wall-clock or CPU deadline."""

    kind = "timeout"


class MemoryExceeded(ToolpenError):
    """The worker ran out of its memory allowance."""

    kind = "memory"


class OutputTooLarge(ToolpenError):
    """The captured output or the result is larger than its limit."""

    kind = "output_too_large"


class RecursionLimit(ToolpenError):
    """The tool recursed deeper than its limit."""

    kind = "recursion"


class WorkerCrashed(ToolpenError):
    """The worker process died without answering (a signal or a hard limit)."""

    kind = "worker_crashed"


class ProtocolBroken(ToolpenError):
    """The worker sent what the wire does not allow (malformed, oversized or out of turn); it was killed."""

    kind = "protocol"


class InvalidState(ToolpenError):
    """The tool stored a value in the session state that is not JSON."""

    kind = "invalid_state"


class NotFound(ToolpenError):
    """A tool, session or call that does not exist."""

    kind = "not_found"


class BudgetExceeded(ToolpenError):
    """A per-call budget ran out: nested tool depth or count, HTTP requests."""

    kind = "budget_exceeded"


class HttpDenied(ToolpenError):
    """The egress policy refused an HTTP request before connecting."""

    kind = "http_denied"


class HttpFailed(ToolpenError):
    """An HTTP request failed: connection, timeout, size cap or an error status."""

    kind = "http_error"


class UnknownOutcome(ToolpenError):
    """An earlier run of this call started but stored no result; it is not run again."""

    kind = "unknown_outcome"


class Conflict(ToolpenError):
    """Another call changed shared state (``app:`` / ``user:`` keys) this call wrote without
    holding their lock; nothing of this call was stored."""

    kind = "conflict"


class IsolationUnavailable(ToolpenError):
    """The machine lacks a wall of the process sandbox (the jail, seccomp); the message says how to get it."""

    kind = "isolation_unavailable"


class MissingExtra(ToolpenError, ImportError):
    """A feature needs an optional dependency group (``pip install 'toolpen[NAME]'``) that is not installed."""

    kind = "missing_extra"


class StoreError(ToolpenError):
    """The session store failed (unreachable, refused, damaged); the message names the store,
    never its password."""

    kind = "store_error"


class StreamEnded(ToolpenError):
    """A model API's event stream kept ending before the session was idle or failed."""

    kind = "stream_ended"


class Busy(Timeout):
    """The call's session stayed locked by other calls past the lock wait limit: nothing ran
    and nothing was stored, so a retry with the same call id can still run."""

    kind = "busy"


class InvalidApp(ToolpenError):
    """An exported agent application is malformed: the message names the file and the field."""

    kind = "invalid_app"


class BadArchive(ToolpenError):
    """A zip archive that is refused: unsafe paths, links, too large, too many entries, unreadable."""

    kind = "bad_archive"


ERROR_KINDS: dict[str, type[ToolpenError]] = {
    cls.kind: cls
    for cls in (
        ToolpenError,
        InvalidSource,
        PolicyViolation,
        InvalidArguments,
        ToolFailed,
        Timeout,
        MemoryExceeded,
        OutputTooLarge,
        RecursionLimit,
        WorkerCrashed,
        ProtocolBroken,
        InvalidState,
        NotFound,
        BudgetExceeded,
        HttpDenied,
        HttpFailed,
        UnknownOutcome,
        Conflict,
        IsolationUnavailable,
        MissingExtra,
        Busy,
        StoreError,
        StreamEnded,
        InvalidApp,
        BadArchive,
    )
}


def error_from_dict(data: dict[str, Any]) -> ToolpenError:
    """Rebuild an error from its JSON shape (as sent by a worker)."""
    cls = ERROR_KINDS.get(str(data.get("kind")), ToolpenError)
    error = cls(str(data.get("message", "")), line=data.get("line"), col=data.get("col"))
    return error
