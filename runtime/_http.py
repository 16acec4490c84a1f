"""The HTTP broker: runs ``requests`` in the host for ``ces_requests`` calls and OpenAPI tools.

Every hop goes through ``EgressPolicy.resolve_and_check`` and connects to the pinned address
(the Host header, TLS SNI and certificate check keep the name). Redirects are followed here, at
most ``max_redirects``, each hop re-checked, credentials dropped when the origin changes. No proxy
settings from the environment, timeouts within the call's deadline, a response size cap, and a
request budget per call.
"""

from __future__ import annotations

import base64
import codecs
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool

from runtime._egress import EgressPolicy, PinnedTarget
from sandbox.bridges.requests_proxy import (
    FAILURE_CONNECTION,
    FAILURE_INVALID_URL,
    FAILURE_REDIRECTS,
    FAILURE_TIMEOUT,
    FAILURE_TOO_LARGE,
)
from sandbox.common.errors import BudgetExceeded, HttpFailed
from sandbox.common.limits import MiB

METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
READ_CHUNK = 64 * 1024


class RequestBudget:
    """How many HTTP requests (redirect hops included) one call may still send. Thread-safe."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def spend(self) -> None:
        """Count one request; raise ``BudgetExceeded`` when the budget is spent."""
        with self._lock:
            if self.used >= self.limit:
                raise BudgetExceeded(f"HTTP request budget spent: at most {self.limit} requests per call")
            self.used += 1


@dataclass(frozen=True)
class HttpRequest:
    """One request as the broker sends it. ``sensitive_headers`` are dropped on cross-origin redirects."""

    method: str
    url: str
    params: Any = None
    headers: Mapping[str, str | bytes] = field(default_factory=dict)
    json: Any = None
    data: Any = None
    timeout: float | tuple[float, float] | None = None
    sensitive_headers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class HttpResponse:
    """A finished response whose body was read under the size cap."""

    status_code: int
    reason: str
    url: str
    headers: dict[str, str]
    content: bytes
    encoding: str

    @property
    def is_json(self) -> bool:
        """Whether the Content-Type says JSON (``application/json`` or ``+json``)."""
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        return kind == "application/json" or kind.endswith("+json")

    @property
    def text(self) -> str:
        """The body decoded with its encoding (undecodable bytes replaced)."""
        return self.content.decode(self.encoding, errors="replace")

    def to_answer(self) -> dict[str, Any]:
        """The JSON answer for ``ces_requests``: text when the body decodes, else ``content_b64``."""
        answer: dict[str, Any] = {
            "status_code": self.status_code,
            "reason": self.reason,
            "url": self.url,
            "headers": self.headers,
            "encoding": self.encoding,
        }
        try:
            answer["text"] = self.content.decode(self.encoding)
        except UnicodeDecodeError:
            answer["content_b64"] = base64.b64encode(self.content).decode("ascii")
        return answer


class PinnedAdapter(HTTPAdapter):
    """A transport that connects to the policy's pinned address, whatever the URL's host resolves to now."""

    def __init__(self, target: PinnedTarget) -> None:
        super().__init__(max_retries=0)
        self.target = target

    def get_connection_with_tls_context(
        self,
        request: requests.PreparedRequest,
        verify: Any,
        proxies: Mapping[str, str] | None = None,
        cert: Any = None,
    ) -> HTTPConnectionPool:
        _, pool_kwargs = self.build_connection_pool_key_attributes(request, verify, cert)
        if self.target.scheme == "https":
            pool_kwargs["server_hostname"] = self.target.host
            pool_kwargs["assert_hostname"] = self.target.host
        return self.poolmanager.connection_from_host(
            self.target.ip, self.target.port, scheme=self.target.scheme, pool_kwargs=pool_kwargs
        )


class HttpBroker:
    """Sends HTTP requests for tools under an ``EgressPolicy`` and per-call limits.

    Certificates are always verified, against ``ca_bundle`` (a PEM file) when given.
    """

    def __init__(
        self,
        policy: EgressPolicy,
        *,
        max_response_bytes: int = 5 * MiB,
        max_requests: int = 20,
        max_redirects: int = 5,
        default_timeout: float = 10.0,
        ca_bundle: str | None = None,
    ) -> None:
        self.policy = policy
        self.ca_bundle = ca_bundle
        self.max_response_bytes = max_response_bytes
        self.max_requests = max_requests
        self.max_redirects = max_redirects
        self.default_timeout = default_timeout

    def new_budget(self) -> RequestBudget:
        """A fresh request budget for one call."""
        return RequestBudget(self.max_requests)

    def handle(self, params: Mapping[str, Any], *, budget: RequestBudget, deadline: float) -> dict[str, Any]:
        """The ``http.request`` RPC from a worker: validate, fetch, answer as JSON."""
        return self.fetch(request_from_params(params), budget=budget, deadline=deadline).to_answer()

    def fetch(self, request: HttpRequest, *, budget: RequestBudget, deadline: float) -> HttpResponse:
        """Send ``request``, following redirects; raise ``HttpDenied``/``HttpFailed``/``BudgetExceeded``."""
        prepared = prepare(request)
        credentials = CREDENTIAL_HEADERS | {name.lower() for name in request.sensitive_headers}
        origin: tuple[str, str, int] | None = None
        for _ in range(self.max_redirects + 1):
            budget.spend()
            target = self.policy.resolve_and_check(prepared.url or "", deadline)
            origin = origin or target.origin
            if target.origin != origin:
                for name in [n for n in prepared.headers if n.lower() in credentials]:
                    del prepared.headers[name]
            response = self._send(prepared, target, request.timeout, deadline)
            location = response.headers.get("Location")
            if response.status_code not in REDIRECT_STATUSES or not location:
                return response
            prepared = _next_hop(prepared, response.status_code, urljoin(response.url, location))
        raise HttpFailed(f"{FAILURE_REDIRECTS} more than {self.max_redirects} redirects")

    def _send(
        self,
        prepared: requests.PreparedRequest,
        target: PinnedTarget,
        timeout: float | tuple[float, float] | None,
        deadline: float,
    ) -> HttpResponse:
        """One hop to the pinned address, body read under the size cap and the deadline."""
        connect, read = _timeouts(timeout, self.default_timeout, deadline)
        prepared.headers["Host"] = urlsplit(prepared.url or "").netloc.rpartition("@")[2]
        where = f"{target.host}:{target.port}"
        adapter = PinnedAdapter(target)
        try:
            response = adapter.send(
                prepared, stream=True, timeout=(connect, read), verify=self.ca_bundle or True, proxies={}
            )
            try:
                content = self._read_body(response, deadline, where)
            finally:
                response.close()
        except requests.ConnectTimeout:
            raise HttpFailed(
                f"{FAILURE_TIMEOUT} connecting to {where} took longer than {connect:.1f}s"
            ) from None
        except (requests.ReadTimeout, urllib3.exceptions.ReadTimeoutError, TimeoutError):
            raise HttpFailed(f"{FAILURE_TIMEOUT} {where} sent nothing for {read:.1f}s") from None
        except requests.exceptions.SSLError:
            raise HttpFailed(
                f"{FAILURE_CONNECTION} TLS handshake or certificate check with {where} failed"
            ) from None
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError):
            raise HttpFailed(f"{FAILURE_CONNECTION} cannot talk to {where}") from None
        finally:
            adapter.close()
        return HttpResponse(
            status_code=response.status_code,
            reason=response.reason or "",
            url=prepared.url or "",
            headers=dict(response.headers),
            content=content,
            encoding=_encoding(response),
        )

    def _read_body(self, response: requests.Response, deadline: float, where: str) -> bytes:
        """Read the body in chunks; stop at the cap, and at the deadline even inside a blocked read."""
        cap = self.max_response_bytes
        too_large = HttpFailed(f"{FAILURE_TOO_LARGE} the response of {where} is larger than {_size(cap)}")
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > cap:
            raise too_large
        raw = response.raw
        late = HttpFailed(f"{FAILURE_TIMEOUT} the call's deadline passed while reading from {where}")
        watchdog = threading.Timer(max(deadline - time.monotonic(), 0.0), raw.shutdown)
        watchdog.daemon = True
        watchdog.start()
        chunks: list[bytes] = []
        total = 0
        try:
            while chunk := raw.read1(READ_CHUNK, decode_content=True):
                total += len(chunk)
                if total > cap:
                    raise too_large
                chunks.append(chunk)
        except (urllib3.exceptions.HTTPError, OSError):
            if time.monotonic() >= deadline:
                raise late from None
            raise
        finally:
            watchdog.cancel()
        if time.monotonic() >= deadline:
            raise late
        return b"".join(chunks)


def prepare(request: HttpRequest) -> requests.PreparedRequest:
    """The ``requests`` prepared request (default headers merged, no cookies, no env settings)."""
    headers: dict[str, str | bytes] = {**requests.utils.default_headers(), **request.headers}
    try:
        return requests.Request(
            method=request.method,
            url=request.url,
            params=request.params,
            headers=headers,
            json=request.json,
            data=request.data,
        ).prepare()
    except (requests.RequestException, ValueError, TypeError) as exc:
        raise HttpFailed(f"{FAILURE_INVALID_URL} {exc}") from None


def request_from_params(params: Mapping[str, Any]) -> HttpRequest:
    """Check the shape of a worker's ``http.request`` params and build the request."""
    method = str(params.get("method") or "GET").upper()
    if method not in METHODS:
        raise HttpFailed(f"{FAILURE_INVALID_URL} method {method!r} is not supported")
    url = params.get("url")
    if not isinstance(url, str):
        raise HttpFailed(f"{FAILURE_INVALID_URL} the url must be a string")
    headers = params.get("headers") or {}
    if not isinstance(headers, Mapping):
        raise HttpFailed(f"{FAILURE_INVALID_URL} headers must be an object")
    data = params.get("data")
    if params.get("data_b64") is not None:
        data = base64.b64decode(str(params["data_b64"]))
    return HttpRequest(
        method=method,
        url=url,
        params=params.get("params"),
        headers={str(k): str(v) for k, v in headers.items()},
        json=params.get("json"),
        data=data,
        timeout=_timeout_param(params.get("timeout")),
    )


def _timeout_param(value: Any) -> float | tuple[float, float] | None:
    """A worker's timeout: None, seconds, or [connect, read]; positive numbers only."""
    if value is None:
        return None
    parts = value if isinstance(value, list | tuple) else [value]
    if len(parts) not in (1, 2) or not all(
        isinstance(p, int | float) and not isinstance(p, bool) and p > 0 for p in parts
    ):
        raise HttpFailed(f"{FAILURE_INVALID_URL} timeout must be a positive number or [connect, read]")
    return float(parts[0]) if len(parts) == 1 else (float(parts[0]), float(parts[1]))


def _timeouts(
    timeout: float | tuple[float, float] | None, default: float, deadline: float
) -> tuple[float, float]:
    """(connect, read) seconds: the requested ones, each at most the time left before the deadline."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise HttpFailed(f"{FAILURE_TIMEOUT} the call's deadline passed before the request was sent")
    connect, read = timeout if isinstance(timeout, tuple) else (timeout or default, timeout or default)
    return min(connect, left), min(read, left)


def _next_hop(prepared: requests.PreparedRequest, status: int, url: str) -> requests.PreparedRequest:
    """The request a redirect asks for: 303 (and 301/302 after POST) become a GET without body."""
    method = prepared.method or "GET"
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        method = "GET"
    keep_body = method == prepared.method
    dropped = {"host"} if keep_body else {"host", "content-type", "content-length"}
    headers = {name: value for name, value in prepared.headers.items() if name.lower() not in dropped}
    return prepare(HttpRequest(method, url, headers=headers, data=prepared.body if keep_body else None))


def _encoding(response: requests.Response) -> str:
    """The body's declared encoding when Python knows it, else UTF-8."""
    name = response.encoding or "utf-8"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "utf-8"


def _size(limit: int) -> str:
    """``5 MiB`` or ``1000 bytes``."""
    return f"{limit // MiB} MiB" if limit % MiB == 0 else f"{limit} bytes"
