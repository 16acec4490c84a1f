"""Protocol errors of the HTTP API and their JSON shape ``{"error": {"kind", "message"}}``;
the routing that answers them for unknown paths and methods too."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sandbox.common.errors import (
    InvalidArguments,
    InvalidSource,
    NotFound,
    PolicyViolation,
    StoreError,
    ToolpenError,
)

Endpoint = Callable[[Request], Awaitable[Response]]


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
    if isinstance(error, StoreError):
        return 503
    return 500


def error_response(
    status: int, error: dict[str, Any], headers: Mapping[str, str] | None = None
) -> JSONResponse:
    """``{"error": error}`` with ``status``."""
    return JSONResponse({"error": error}, status_code=status, headers=headers)


def route(path: str, **handlers: Endpoint) -> Route:
    """One route for ``path`` with a handler per method (``GET=...``), so that a 405 lists every
    method of the path in ``Allow`` (routes of one path per method each listed only their own)."""

    async def by_method(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    return Route(path, by_method, methods=list(handlers), name=path)


HTTP_KINDS = {404: "not_found", 405: "method_not_allowed"}


async def http_error(request: Request, error: Exception) -> Response:
    """Starlette's own refusals (no route, a method the route lacks) in the JSON error shape."""
    assert isinstance(error, HTTPException)
    if error.status_code == 405:
        assert error.headers is not None  # starlette's 405 always says what is allowed
        message = f"{request.method} is not allowed on {request.url.path}; allowed: {error.headers['Allow']}"
    elif error.status_code == 404:
        message = f"no route {request.url.path} (see /openapi.json)"
    else:
        message = error.detail
    kind = HTTP_KINDS.get(error.status_code, "bad_request")
    return error_response(error.status_code, {"kind": kind, "message": message}, error.headers)


async def internal_error(request: Request, error: Exception) -> Response:
    """The JSON shape for a fault of ours (logged by the server with its traceback, never sent)."""
    return error_response(500, {"kind": "internal", "message": "internal error of the service"})
