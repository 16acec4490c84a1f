"""Access logs with request ids: one line per request, as text or JSON lines.

Every response carries ``X-Request-Id``: the caller's own (when it is a plain token of at most
64 characters), else a fresh one, so a client's report, the access log and the service's own
log lines name the same request. Lines go to the ``toolpen.access`` logger at INFO.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from typing import Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

AccessLogFormat = Literal["text", "json", "off"]
ACCESS_LOG_FORMATS: tuple[AccessLogFormat, ...] = ("text", "json", "off")

REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")

log = logging.getLogger("toolpen.access")


class AccessLogMiddleware:
    """Assigns the request id, logs the request when its response has been sent."""

    def __init__(self, app: ASGIApp, log_format: AccessLogFormat) -> None:
        self.app = app
        self.log_format = log_format

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            if self.log_format != "off":
                self._log(scope, request_id, status, time.perf_counter() - started)

    def _log(self, scope: Scope, request_id: str, status: int, seconds: float) -> None:
        client = scope.get("client")
        fields = {
            "time": round(time.time(), 3),
            "request_id": request_id,
            "client": client[0] if client else None,
            "method": scope["method"],
            "path": scope["path"],
            "route": getattr(scope.get("route"), "path", None),
            "status": status,
            "duration_ms": round(seconds * 1000, 1),
        }
        if self.log_format == "json":
            log.info(json.dumps(fields, separators=(",", ":")))
        else:
            log.info(
                '%s "%s %s" %s %.1fms id=%s',
                fields["client"],
                fields["method"],
                str(fields["path"]).encode("unicode_escape").decode("ascii"),  # no forged lines
                status,
                fields["duration_ms"],
                request_id,
            )
