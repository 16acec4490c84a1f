"""The walls of a local server that runs code: a token, the Host and Origin headers, and the page's headers.

- Token: the printed URL carries it in the fragment (``/#token=``), which a browser never sends
  to any server; the page keeps it in ``sessionStorage`` (one origin: scheme, host *and* port)
  and sends it as ``X-Toolpen-Token`` on every API request. There is no cookie, so another
  server on the same host never receives it, and two playgrounds in one browser keep their own.
  The page and its static files need no token (they hold no secret); every ``/api/`` request
  does, and a missing, wrong or malformed one is a 403.
- Host must be a loopback name or the bound host (with ``--public``, also this machine's name);
  bound to a wildcard (``0.0.0.0``, ``::``), also the address the connection arrived on. A DNS-rebinding page names its own host.
- Origin, when sent, must be this server itself: no cross-site requests.
- Every response forbids framing (CSP ``frame-ancestors 'none'``, ``X-Frame-Options: DENY``),
  loads nothing but this server's own files (a strict CSP), and sets ``nosniff`` and
  ``Referrer-Policy: no-referrer``.
- Only HTTP (and the server's lifespan) pass: a websocket is closed unanswered.
"""

from __future__ import annotations

import hmac
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import JSONResponse

from runtime._egress import LOOPBACK_NAMES

HEADER = "x-toolpen-token"
WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})
SECURITY_HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _hostname(authority: str) -> str:
    """The host part of ``host[:port]`` or ``[v6]:port``, lower case ("" when it does not parse)."""
    try:
        return (urlsplit(f"//{authority}").hostname or "").lower()
    except ValueError:
        return ""


class Guard:
    """ASGI middleware: refuses (403, a structured error) what fails the token, Host or Origin check,
    and puts the security headers on every response."""

    def __init__(self, app: App, *, token: str, bound_host: str) -> None:
        self.app = app
        self.token = token.encode()
        bound = bound_host.strip("[]").lower()
        self.wildcard = bound in WILDCARD_HOSTS
        self.allowed_hosts = LOOPBACK_NAMES | ({bound} if not self.wildcard else set())
        if bound not in LOOPBACK_NAMES:  # --public: the machine's own name too
            self.allowed_hosts |= {socket.gethostname().lower()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return

        async def send_secured(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        refusal = self.refusal(scope)
        if refusal is not None:
            await _refuse(*refusal)(scope, receive, send_secured)
            return
        await self.app(scope, receive, send_secured)

    def refusal(self, scope: Scope) -> tuple[str, str] | None:
        """Why this request is refused (kind, message), or None."""
        headers = {key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]}
        host = headers.get("host", "")
        if not self.host_allowed(_hostname(host), scope):
            return "bad_host", "the Host header names neither this machine nor the bound address"
        origin = headers.get("origin")
        if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
            return "bad_origin", "cross-origin requests are refused"
        if not scope.get("path", "").startswith("/api/"):
            return None  # the page and its static files: no secret in them
        given = headers.get(HEADER)
        if given is None or not hmac.compare_digest(given.encode("latin-1"), self.token):
            return "unauthorized", "open the URL that `toolpen web` printed (its #token= part)"
        return None

    def host_allowed(self, hostname: str, scope: Scope) -> bool:
        if hostname in self.allowed_hosts:
            return True
        arrived_on = (scope.get("server") or ("",))[0]
        return self.wildcard and bool(hostname) and hostname == str(arrived_on).lower()


def _refuse(kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"kind": kind, "message": message}}, status_code=403)
