"""A local stub of the CRM service in samples/openapi/crm_service.yaml (127.0.0.1 only).

    python samples/crm_server.py [--port 8765] [--api-key demo-key]

Then, with toolpen: ``rt.add_openapi("crm_service", "samples/openapi/crm_service.yaml",
auth={"crm_key": "demo-key"})`` and ``EgressPolicy(allow_hosts=["127.0.0.1:8765"])``.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class CrmHandler(BaseHTTPRequestHandler):
    """Carts and loyalty points in memory; every request needs the X-CRM-Key header."""

    server: CrmServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def reply(self, status: int, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def handle_any(self) -> None:
        if self.headers.get("X-CRM-Key") != self.server.api_key:
            self.reply(401, {"error": "missing or wrong X-CRM-Key"})
            return
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"null")
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        with self.server.lock:
            self.route(self.command, parts.path, query, body)

    def route(self, method: str, path: str, query: dict[str, str], body: Any) -> None:
        carts, points = self.server.carts, self.server.points
        if method == "GET" and path == "/cart":
            cart_id = query.get("customer_id", "c-1")
            self.reply(200, {"cart_id": cart_id, "items": carts.setdefault(cart_id, [])})
        elif method == "POST" and (match := re.fullmatch(r"/carts/([^/]+)/items", path)):
            cart_id = match.group(1)
            carts.setdefault(cart_id, []).append({"sku": body["sku"], "quantity": body["quantity"]})
            self.reply(201, {"cart_id": cart_id, "items": carts[cart_id]})
        elif method == "PATCH" and (match := re.fullmatch(r"/customers/([^/]+)/loyalty", path)):
            customer = match.group(1)
            points[customer] = points.get(customer, 0) + int(body["points"])
            self.reply(200, {"points": points[customer]})
        else:
            self.reply(404, {"error": f"no route for {method} {path}"})

    do_GET = do_POST = do_PATCH = handle_any


class CrmServer(ThreadingHTTPServer):
    """The stub server, bound to 127.0.0.1."""

    daemon_threads = True

    def __init__(self, port: int = 8765, api_key: str = "demo-key") -> None:
        super().__init__(("127.0.0.1", port), CrmHandler)
        self.api_key = api_key
        self.lock = threading.Lock()
        self.carts: dict[str, list[dict[str, Any]]] = {"c-1": [{"sku": "tea", "quantity": 2}]}
        self.points: dict[str, int] = {}

    @property
    def port(self) -> int:
        return int(self.server_address[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--api-key", default="demo-key")
    options = parser.parse_args()
    server = CrmServer(options.port, options.api_key)
    print(f"CRM stub on http://127.0.0.1:{server.port} (X-CRM-Key: {options.api_key})")
    server.serve_forever()


if __name__ == "__main__":
    main()
