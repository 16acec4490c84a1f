"""``ces_requests`` as tool code sees it: the requests-like surface, over an RPC to the host broker.

Nothing here touches the network. Each call sends ``rpc("http", "request", {...})``; the host's
broker (``runtime/_http.py``) runs it under the egress policy and answers with the response as JSON,
or with a structured error that becomes one of the exceptions below. The broker starts each
``http_error`` message with one of the ``FAILURE_*`` prefixes so the right class can be raised.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from typing import Any

from sandbox.common.errors import HttpDenied, HttpFailed
from sandbox.messages import Rpc

# The host's HTTP broker (``runtime._http``) starts an ``http_error`` message with one of these prefixes, so that
# ``ces_requests`` inside the worker raises the matching requests-style exception.
FAILURE_TIMEOUT = "timeout:"
FAILURE_CONNECTION = "connection error:"
FAILURE_REDIRECTS = "too many redirects:"
FAILURE_INVALID_URL = "invalid url:"
FAILURE_TOO_LARGE = "response too large:"


class RequestException(Exception):
    """Base of every ``ces_requests`` error; ``response`` is set for HTTP status errors."""

    def __init__(self, message: str = "", response: Response | None = None) -> None:
        super().__init__(message)
        self.response = response


class HTTPError(RequestException):
    """``raise_for_status()`` found a 4xx or 5xx status."""


class ConnectionError(RequestException):
    """The host could not be resolved or reached."""


class Timeout(RequestException):
    """The server did not answer within the timeout or the call's deadline."""


class TooManyRedirects(RequestException):
    """More redirects than the broker follows."""


class InvalidURL(RequestException, ValueError):
    """The URL cannot be read."""


class ContentTooLarge(RequestException):
    """The response body is larger than the broker's cap."""


class RequestDenied(RequestException):
    """The egress policy refused the address (private, loopback, metadata, ...) or the scheme."""


class JSONDecodeError(RequestException, ValueError):
    """``Response.json()`` found a body that is not JSON."""


FAILURE_CLASSES: dict[str, type[RequestException]] = {
    FAILURE_TIMEOUT: Timeout,
    FAILURE_CONNECTION: ConnectionError,
    FAILURE_REDIRECTS: TooManyRedirects,
    FAILURE_INVALID_URL: InvalidURL,
    FAILURE_TOO_LARGE: ContentTooLarge,
}


class Headers(Mapping[str, str]):
    """Response headers, read-only, with case-insensitive names."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, str]) -> None:
        self._items = {name.lower(): (name, str(value)) for name, value in items.items()}

    def __getitem__(self, name: str) -> str:
        return self._items[name.lower()][1]

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class Response:
    """A finished HTTP response, built from the broker's JSON answer (slots: its methods stay its own)."""

    __slots__ = ("status_code", "reason", "url", "headers", "encoding", "text", "content")

    def __init__(self, answer: Mapping[str, Any]) -> None:
        self.status_code: int = int(answer["status_code"])
        self.reason: str = str(answer.get("reason") or "")
        self.url: str = str(answer.get("url") or "")
        self.headers = Headers(answer.get("headers") or {})
        self.encoding: str = str(answer.get("encoding") or "utf-8")
        if "text" in answer:
            self.text: str = str(answer["text"])
            self.content: bytes = self.text.encode(self.encoding)
        else:
            self.content = base64.b64decode(answer.get("content_b64") or "")
            self.text = self.content.decode(self.encoding, errors="replace")

    @property
    def ok(self) -> bool:
        """True for statuses below 400."""
        return self.status_code < 400

    def json(self) -> Any:
        """The body parsed as JSON; raises ``JSONDecodeError`` otherwise."""
        try:
            return json.loads(self.text)
        except ValueError as exc:
            raise JSONDecodeError(f"response body is not JSON: {exc}", response=self) from None

    def raise_for_status(self) -> None:
        """Raise ``HTTPError`` for a 4xx or 5xx status."""
        if 400 <= self.status_code < 600:
            side = "Client" if self.status_code < 500 else "Server"
            message = f"{self.status_code} {side} Error: {self.reason} for url: {self.url}"
            raise HTTPError(message, response=self)

    def __repr__(self) -> str:
        return f"<Response [{self.status_code}]>"


def _translated(error: Exception) -> Exception:
    """The ``ces_requests`` exception for a broker error; other errors (budgets) unchanged."""
    if isinstance(error, HttpDenied):
        return RequestDenied(error.message)
    if isinstance(error, HttpFailed):
        cls = next((c for p, c in FAILURE_CLASSES.items() if error.message.startswith(p)), RequestException)
        return cls(error.message)
    return error


class Requests:
    """The ``ces_requests`` global: ``get``/``post``/... plus the exception classes.

    As in CES, every method funnels into ``Requests.request(method, url, params, data, headers,
    json)``, which refuses other keyword arguments (``timeout=`` among them: the broker's own
    timeout and the call's deadline apply).
    """

    RequestException = RequestException
    HTTPError = HTTPError
    ConnectionError = ConnectionError
    Timeout = Timeout
    TooManyRedirects = TooManyRedirects
    InvalidURL = InvalidURL
    ContentTooLarge = ContentTooLarge
    RequestDenied = RequestDenied
    JSONDecodeError = JSONDecodeError

    __slots__ = ("_rpc",)

    def __init__(self, rpc: Rpc) -> None:
        self._rpc = rpc

    def request(
        self,
        method: str,
        url: str,
        params: Any = None,
        data: Any = None,
        headers: Mapping[str, str] | None = None,
        json: Any = None,
    ) -> Response:
        """Send one request through the host broker and return its response."""
        payload: dict[str, Any] = {
            "method": str(method).upper(),
            "url": str(url),
            "params": params,
            "json": json,
            "headers": dict(headers) if headers else None,
        }
        if isinstance(data, bytes | bytearray):
            payload["data_b64"] = base64.b64encode(bytes(data)).decode("ascii")
        else:
            payload["data"] = data
        try:
            answer = self._rpc("http", "request", payload)
        except Exception as error:
            raise _translated(error) from None
        return Response(answer)

    def get(self, url: str, params: Any = None, **kwargs: Any) -> Response:
        """GET ``url``."""
        return self.request("GET", url, params=params, **kwargs)

    def head(self, url: str, **kwargs: Any) -> Response:
        """HEAD ``url``."""
        return self.request("HEAD", url, **kwargs)

    def options(self, url: str, **kwargs: Any) -> Response:
        """OPTIONS ``url``."""
        return self.request("OPTIONS", url, **kwargs)

    def post(self, url: str, data: Any = None, json: Any = None, **kwargs: Any) -> Response:
        """POST to ``url``."""
        return self.request("POST", url, data=data, json=json, **kwargs)

    def put(self, url: str, data: Any = None, **kwargs: Any) -> Response:
        """PUT to ``url``."""
        return self.request("PUT", url, data=data, **kwargs)

    def patch(self, url: str, data: Any = None, **kwargs: Any) -> Response:
        """PATCH ``url``."""
        return self.request("PATCH", url, data=data, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> Response:
        """DELETE ``url``."""
        return self.request("DELETE", url, **kwargs)


def make_ces_requests(rpc: Rpc) -> Requests:
    """The object the worker injects as the global ``ces_requests``."""
    return Requests(rpc)
