"""Time limits on a connection and a request: slow clients cannot hold the service.

- The request head (line and headers) must arrive within ``header_timeout`` seconds of the
  connection opening or of the previous response; else the connection is closed. uvicorn's
  keep-alive timer restarts on every byte, so a client trickling a header byte at a time held
  a connection for ever.
- The body must arrive within ``body_timeout`` seconds (``read_json_object``: 408).
- The whole request must be answered within ``request_deadline`` seconds (504 ``deadline``). A
  call already running in its thread still finishes and commits: retry with the same call id
  to get its result.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from runtime._server.responses import error_response


def h11_with_header_timeout(header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request head is not in after ``header_timeout``."""

    class HeaderTimeoutProtocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _timed_cycle: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self.cycle is not None and self.cycle is not self._timed_cycle:  # a new request's head is in
                self._timed_cycle = self.cycle
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection gets its own head time

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(header_timeout, self._expire)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _expire(self) -> None:
            self._head_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeoutProtocol


class DeadlineMiddleware:
    """504 ``deadline`` for a request not answered within ``seconds`` (if nothing was sent yet)."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            async with asyncio.timeout(self.seconds):
                await self.app(scope, receive, watch)
        except TimeoutError:
            if started:
                raise
            message = (
                f"the request took longer than {self.seconds:g}s; a call may still complete: "
                "retry with the same call id for its result"
            )
            response = error_response(504, {"kind": "deadline", "message": message})
            await response(scope, receive, send)


def uvicorn_options(header_timeout: float) -> dict[str, Any]:
    """What `toolpen serve` gives ``uvicorn.run`` besides the app, host and port."""
    return {
        "http": h11_with_header_timeout(header_timeout),
        "timeout_keep_alive": 5,
        "h11_max_incomplete_event_size": 16 * 1024,  # the request head, at most
        "access_log": False,  # ours has request ids (runtime/_server/access_log.py)
    }
