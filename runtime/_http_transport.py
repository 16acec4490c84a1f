"""The broker's ``requests`` side: one hop to the pinned address, its body read under the cap.

Loaded with a runtime's first HTTP request (``HttpBroker.fetch``), so that ``requests`` and
``urllib3`` cost nothing to a runtime whose tools send none.
"""

from __future__ import annotations

import codecs
import threading
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import HTTPConnectionPool

from runtime._egress import PinnedTarget
from runtime._http import HttpRequest, HttpResponse, Transfer, size_text
from sandbox.bridges.requests_proxy import (
    FAILURE_CONNECTION,
    FAILURE_INVALID_URL,
    FAILURE_TIMEOUT,
    FAILURE_TOO_LARGE,
)
from sandbox.common.errors import HttpFailed

READ_CHUNK = 64 * 1024


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


def send(prepared: requests.PreparedRequest, target: PinnedTarget, transfer: Transfer) -> HttpResponse:
    """One hop to the pinned address, body read under the size cap and the deadline."""
    connect, read = transfer.connect, transfer.read
    prepared.headers["Host"] = urlsplit(prepared.url or "").netloc.rpartition("@")[2]
    where = f"{target.host}:{target.port}"
    adapter = PinnedAdapter(target)
    try:
        response = adapter.send(
            prepared, stream=True, timeout=(connect, read), verify=transfer.ca_bundle or True, proxies={}
        )
        try:
            content = _read_body(response, transfer, where)
        finally:
            response.close()
    except requests.ConnectTimeout:
        raise HttpFailed(f"{FAILURE_TIMEOUT} connecting to {where} took longer than {connect:.1f}s") from None
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


def _read_body(response: requests.Response, transfer: Transfer, where: str) -> bytes:
    """Read the body in chunks; stop at the cap, and at the deadline even inside a blocked read."""
    cap, deadline = transfer.max_bytes, transfer.deadline
    too_large = HttpFailed(f"{FAILURE_TOO_LARGE} the response of {where} is larger than {size_text(cap)}")
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


def next_hop(prepared: requests.PreparedRequest, status: int, url: str) -> requests.PreparedRequest:
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
