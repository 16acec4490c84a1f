"""Real HTTP servers on 127.0.0.1 (port 0) for the HTTP tests: routes are small functions."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
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

    def __init__(self, routes: dict[str, Route], tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)
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
def serve(routes: dict[str, Route] | None = None, tls: ssl.SSLContext | None = None) -> Iterator[LocalServer]:
    """Run a server (HTTPS with ``tls``) in a thread for the duration of the block."""
    server = LocalServer(dict(routes or {}), tls)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def make_tls(directory: Path, *names: str) -> tuple[ssl.SSLContext, str, list[str]]:
    """A server context with a certificate for ``names`` (DNS names or IPs), the CA file, and the SNI log."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)

    def certificate(
        subject: str, key: Any, issuer: str, signer: Any, ca: bool, sans: list[x509.GeneralName]
    ) -> Any:
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return builder.sign(signer, hashes.SHA256())

    def general_name(name: str) -> x509.GeneralName:
        try:
            return x509.IPAddress(ipaddress.ip_address(name))
        except ValueError:
            return x509.DNSName(name)

    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = certificate("toolpen test CA", ca_key, "toolpen test CA", ca_key, True, [])
    leaf = certificate(names[0], leaf_key, "toolpen test CA", ca_key, False, [general_name(n) for n in names])
    pem = serialization.Encoding.PEM
    (directory / "ca.pem").write_bytes(ca.public_bytes(pem))
    (directory / "leaf.pem").write_bytes(leaf.public_bytes(pem))
    key = leaf_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (directory / "leaf.key").write_bytes(key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory / "leaf.pem", directory / "leaf.key")
    sni: list[str] = []
    context.sni_callback = lambda _sock, name, _ctx: sni.append(name)  # type: ignore[assignment,func-returns-value]
    return context, str(directory / "ca.pem"), sni
