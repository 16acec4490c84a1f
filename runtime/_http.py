"""The HTTP broker: runs ``requests`` in the host for ``ces_requests`` calls and OpenAPI tools.

Every hop goes through ``EgressPolicy.resolve_and_check`` and connects to the pinned address
(the Host header, TLS SNI and certificate check keep the name). Redirects are followed here, at
most ``max_redirects``, each hop re-checked, credentials dropped when the origin changes. No proxy
settings from the environment, timeouts within the call's deadline, a response size cap, and a
request budget per call. ``requests`` itself is in ``runtime/_http_transport.py``, loaded with
the first request: a runtime whose tools send none never imports it.
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from runtime._egress import EgressPolicy
from sandbox.bridges.requests_proxy import FAILURE_INVALID_URL, FAILURE_REDIRECTS, FAILURE_TIMEOUT
from sandbox.common.errors import BudgetExceeded, HttpFailed
from sandbox.common.limits import MiB

METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})


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


@dataclass(frozen=True)
class Transfer:
    """What one hop may take: its (connect, read) timeouts, the call's deadline, the body's cap."""

    connect: float
    read: float
    deadline: float
    max_bytes: int
    ca_bundle: str | None


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
        from runtime._http_transport import next_hop, prepare, send

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
            connect, read = _timeouts(request.timeout, self.default_timeout, deadline)
            transfer = Transfer(connect, read, deadline, self.max_response_bytes, self.ca_bundle)
            response = send(prepared, target, transfer)
            location = response.headers.get("Location")
            if response.status_code not in REDIRECT_STATUSES or not location:
                return response
            prepared = next_hop(prepared, response.status_code, urljoin(response.url, location))
        raise HttpFailed(f"{FAILURE_REDIRECTS} more than {self.max_redirects} redirects")


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


def size_text(limit: int) -> str:
    """``5 MiB`` or ``1000 bytes``."""
    return f"{limit // MiB} MiB" if limit % MiB == 0 else f"{limit} bytes"
