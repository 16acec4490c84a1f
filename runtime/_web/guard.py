"""The walls of a local server that runs code: a token, the Host header and the Origin header.

- Token (as Jupyter does): ``?token=`` on the page sets an HttpOnly cookie; every request
  needs the cookie or an ``X-Toolpen-Token`` header, else 403. A page of another site cannot
  read the token.
- Host must be a loopback name or the bound host: a DNS-rebinding page names its own host.
- Origin, when sent, must be this server itself: no cross-site requests.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.responses import JSONResponse

from runtime._egress import LOOPBACK_NAMES

COOKIE = "toolpen_web_token"
HEADER = "x-toolpen-token"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def _hostname(authority: str) -> str:
    """The host part of ``host[:port]`` or ``[v6]:port``, lower case."""
    return (urlsplit(f"//{authority}").hostname or "").lower()


class Guard:
    """ASGI middleware: refuses (403, a structured error) what fails the token, Host or Origin check."""

    def __init__(self, app: App, *, token: str, bound_host: str) -> None:
        self.app = app
        self.token = token
        self.allowed_hosts = LOOPBACK_NAMES | {bound_host.strip("[]").lower()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1"): value.decode("latin-1") for key, value in scope["headers"]}
        host = headers.get("host", "")
        if _hostname(host) not in self.allowed_hosts:
            await _refuse("bad_host", "the Host header names neither this machine nor the bound address")(
                scope, receive, send
            )
            return
        origin = headers.get("origin")
        if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
            await _refuse("bad_origin", "cross-origin requests are refused")(scope, receive, send)
            return
        given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [None])[0]
        cookie = SimpleCookie(headers.get("cookie", "")).get(COOKIE)
        candidates = [given, headers.get(HEADER), cookie.value if cookie else None]
        if not any(c is not None and hmac.compare_digest(c, self.token) for c in candidates):
            await _refuse("unauthorized", "open the URL with ?token= that `toolpen web` printed")(
                scope, receive, send
            )
            return
        if given is None:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                value = f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", value.encode())]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def _refuse(kind: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"kind": kind, "message": message}}, status_code=403)
