"""The error kinds of toolpen, in one place.

Every failure a user or a model can see is a :class:`ToolpenError` with a stable ``kind``
string. The kinds are grouped in families a host can catch; a family is for ``except`` only: it
has no ``kind`` of its own, and what is reported (``to_dict``, the wire, ``ToolResult.error``)
is always the leaf's kind. Messages name the tool's own line numbers, never host paths.

* ToolpenError                          ``internal``
  * SourceError: the tool's code cannot be used, or did what the policy refuses
    * InvalidSource                     ``invalid_source``
    * PolicyViolation                   ``policy``
      * ImportRefused                   ``policy`` (also an ``ImportError``)
  * ArgumentError: the call names what is not there, or arguments that do not fit
    * InvalidArguments                  ``invalid_arguments``
    * NotFound                          ``not_found``
  * ToolError: the tool's own code failed
    * ToolFailed                        ``tool_error``
    * InvalidState                      ``invalid_state``
  * LimitExceeded: a limit or a budget ended the call
    * Timeout                           ``timeout``
      * Busy                            ``busy``
    * MemoryExceeded                    ``memory``
    * OutputTooLarge                    ``output_too_large``
    * RecursionLimit                    ``recursion``
    * BudgetExceeded                    ``budget_exceeded``
  * IsolationError: the process wall (the jail, its workers, the wire to them)
    * WorkerCrashed                     ``worker_crashed``
    * ProtocolBroken                    ``protocol``
    * IsolationUnavailable              ``isolation_unavailable``
  * TransportError: a connection to the outside (a tool's HTTP request, a model API's stream)
    * HttpDenied                        ``http_denied``
    * HttpFailed                        ``http_error``
    * StreamEnded                       ``stream_ended``
  * SessionError: the session, its store and what it recorded
    * UnknownOutcome                    ``unknown_outcome``
    * Conflict                          ``conflict``
    * StoreError                        ``store_error``
  * SetupError: what a host sets a runtime up from cannot be used
    * MissingExtra                      ``missing_extra`` (also an ``ImportError``)
    * InvalidApp                        ``invalid_app``
    * BadArchive                        ``bad_archive``
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


class SourceError(ToolpenError):
    """The family of a tool's code that cannot be used or does what the sandbox policy refuses."""


class InvalidSource(SourceError):
    """The tool source cannot be used: unreadable, a syntax error, no entry function."""

    kind = "invalid_source"


class PolicyViolation(SourceError):
    """The code does something the sandbox policy refuses (checked at compile or run time)."""

    kind = "policy"


class ImportRefused(PolicyViolation, ImportError):
    """An import the language wall refuses, raised where the import runs: ``except ImportError``
    in tool code catches it (a guarded import works), and uncaught it is the call's ``policy`` error."""


class ArgumentError(ToolpenError):
    """The family of a call that names what is not there or passes arguments that do not fit."""


class InvalidArguments(ArgumentError):
    """The arguments do not match the tool's schema."""

    kind = "invalid_arguments"


class NotFound(ArgumentError):
    """A tool, session or call that does not exist."""

    kind = "not_found"


class ToolError(ToolpenError):
    """The family of failures of the tool's own code."""


class ToolFailed(ToolError):
    """The tool's own code raised an exception."""

    kind = "tool_error"


class InvalidState(ToolError):
    """The tool stored a value in the session state that is not JSON."""

    kind = "invalid_state"


class LimitExceeded(ToolpenError):
    """The family of the limits and budgets that end a call (``Limits``, nested calls, locks)."""


class Timeout(LimitExceeded):
    """The call ran past its wall-clock or CPU deadline."""

    kind = "timeout"


class Busy(Timeout):
    """The call's session stayed locked by other calls past the lock wait limit: nothing ran
    and nothing was stored, so a retry with the same call id can still run."""

    kind = "busy"


class MemoryExceeded(LimitExceeded):
    """The worker ran out of its memory allowance."""

    kind = "memory"


class OutputTooLarge(LimitExceeded):
    """The captured output or the result is larger than its limit."""

    kind = "output_too_large"


class RecursionLimit(LimitExceeded):
    """The tool recursed deeper than its limit."""

    kind = "recursion"


class BudgetExceeded(LimitExceeded):
    """A per-call budget ran out: nested tool depth or count, HTTP requests."""

    kind = "budget_exceeded"


class IsolationError(ToolpenError):
    """The family of the process wall: the jail the machine lacks, a worker that died or broke the wire."""


class WorkerCrashed(IsolationError):
    """The worker process died without answering (a signal or a hard limit)."""

    kind = "worker_crashed"


class ProtocolBroken(IsolationError):
    """The worker sent what the wire does not allow (malformed, oversized or out of turn); it was killed."""

    kind = "protocol"


class IsolationUnavailable(IsolationError):
    """The machine lacks a wall of the process sandbox (the jail, seccomp); the message says how to get it."""

    kind = "isolation_unavailable"


class TransportError(ToolpenError):
    """The family of connections to the outside: a tool's HTTP requests, a model API's event stream."""


class HttpDenied(TransportError):
    """The egress policy refused an HTTP request before connecting."""

    kind = "http_denied"


class HttpFailed(TransportError):
    """An HTTP request failed: connection, timeout, size cap or an error status."""

    kind = "http_error"


class ModelFailed(TransportError):
    """A model endpoint failed: unreachable, timed out, an HTTP error, or a reply that is no
    Chat Completions response."""

    kind = "model_error"


class StreamEnded(TransportError):
    """A model API's event stream kept ending before the session was idle or failed."""

    kind = "stream_ended"


class SessionError(ToolpenError):
    """The family of the session: its store, and what the store recorded of earlier calls."""


class UnknownOutcome(SessionError):
    """An earlier run of this call started but stored no result; it is not run again."""

    kind = "unknown_outcome"


class Conflict(SessionError):
    """Another call changed shared state (``app:`` / ``user:`` keys) this call wrote without
    holding their lock; nothing of this call was stored."""

    kind = "conflict"


class StoreError(SessionError):
    """The session store failed (unreachable, refused, damaged); the message names the store,
    never its password."""

    kind = "store_error"


class SetupError(ToolpenError):
    """The family of what a host sets a runtime up from: optional dependencies, apps, archives."""


class MissingExtra(SetupError, ImportError):
    """A feature needs an optional dependency group (``pip install 'toolpen[NAME]'``) that is not installed."""

    kind = "missing_extra"


class InvalidApp(SetupError):
    """An exported agent application is malformed: the message names the file and the field."""

    kind = "invalid_app"


class BadArchive(SetupError):
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
