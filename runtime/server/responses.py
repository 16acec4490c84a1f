"""Protocol errors of the HTTP API and their JSON shape ``{"error": {"kind", "message"}}``."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse

from runtime.errors import InvalidArguments, InvalidSource, NotFound, PolicyViolation, ToolpenError


class ApiError(Exception):
    """A request the API refuses: an HTTP status, a stable ``kind`` and a message."""

    def __init__(self, status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.headers = headers


def status_of(error: ToolpenError) -> int:
    """The HTTP status of a toolpen error raised while serving a request (not a call's result)."""
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, InvalidSource | PolicyViolation | InvalidArguments):
        return 422
    return 500


def error_response(status: int, error: dict[str, Any], headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"error": error}`` with ``status``."""
    return JSONResponse({"error": error}, status_code=status, headers=headers)
