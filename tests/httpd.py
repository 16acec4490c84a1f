"""Real HTTP servers on 127.0.0.1 (port 0) for the HTTP tests: routes are small functions."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Hit:
    """One request a server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


class Handler(BaseHTTPRequestHandler):
    """Dispatches every method to ``server.routes[path]`` (or answers 404), recording the request."""

    server: LocalServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def send(self, status: int, body: bytes | str = b"", headers: dict[str, str] | None = None) -> None:
        """Answer with a status, body and headers (Content-Length set)."""
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        """Answer with a JSON body."""
        self.send(status, json.dumps(value), {"Content-Type": "application/json", **(headers or {})})

    def dispatch(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        self.hit = Hit(
            self.command, parts.path, parse_qs(parts.query), dict(self.headers), self.rfile.read(length)
        )
        self.server.hits.append(self.hit)
        route = self.server.routes.get(parts.path)
        if route is None:
            self.send_json(404, {"error": "no such path", "path": parts.path})
        else:
            route(self)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = dispatch


Route = Callable[[Handler], None]


class LocalServer(ThreadingHTTPServer):
    """A threaded server whose routes and received requests the test can see."""

    daemon_threads = True

    def __init__(self, routes: dict[str, Route]) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.routes = routes
        self.hits: list[Hit] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: clients hanging up early (size caps, timeouts) are what the tests do."""

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def allow(self) -> str:
        """The ``allow_hosts`` entry that lets a policy reach this server."""
        return f"127.0.0.1:{self.port}"


@contextmanager
def serve(routes: dict[str, Route] | None = None) -> Iterator[LocalServer]:
    """Run a server in a thread for the duration of the block."""
    server = LocalServer(routes=dict(routes or {}))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
