"""Request limits: the body size cap and a token-bucket rate limit per API key."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from typing import Any

from starlette.requests import Request

from runtime._server.responses import ApiError

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects a request body may have. Deeper values made
``json.loads`` (or the store's or the worker's JSON encoding, later, in a thread with less
stack left) raise ``RecursionError``: a 500, after the call had begun and possibly run."""

MAX_CLIENTS = 10_000
"""Buckets kept at most; past it, full (idle) buckets are dropped."""


class RateLimiter:
    """``rate`` requests per second per client, in bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # client -> (tokens, at)

    def acquire(self, client: str) -> float:
        """Take a token: 0.0 if one was there, else the seconds until the next one."""
        now = self._clock()
        tokens, at = self._buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - at) * self.rate)
        if tokens >= 1.0:
            self._store(client, tokens - 1.0, now)
            return 0.0
        self._store(client, tokens, now)
        return (1.0 - tokens) / self.rate

    def check(self, client: str) -> None:
        """``acquire`` or raise a 429 with ``Retry-After`` (whole seconds, at least 1)."""
        wait = self.acquire(client)
        if wait > 0:
            raise ApiError(
                429,
                "rate_limited",
                f"too many requests: at most {self.rate:g}/s (bursts of {self.burst}) per API key",
                headers={"Retry-After": str(max(1, math.ceil(wait)))},
            )

    def _store(self, client: str, tokens: float, now: float) -> None:
        if len(self._buckets) >= MAX_CLIENTS and client not in self._buckets:
            idle = [c for c, (t, at) in self._buckets.items() if t + (now - at) * self.rate >= self.burst]
            for c in idle:
                del self._buckets[c]
        self._buckets[client] = (tokens, now)


async def read_json_object(request: Request, max_bytes: int, timeout: float = 30.0) -> dict[str, Any]:
    """The request's JSON object body; 413 past ``max_bytes`` (before reading it all), 408 if it
    takes longer than ``timeout`` seconds to arrive, 400 if not JSON."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise _too_large(max_bytes)
    body = bytearray()
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > max_bytes:
                    raise _too_large(max_bytes)
    except TimeoutError:
        raise ApiError(
            408,
            "request_timeout",
            f"the request body did not arrive within {timeout:g}s",
            {"Connection": "close"},
        ) from None
    try:
        data = json.loads(body or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ApiError(400, "bad_request", f"the body is not valid JSON: {error}") from None
    except RecursionError:
        raise _too_deep() from None
    except ValueError as error:  # an integer of more than sys.get_int_max_str_digits() digits
        raise ApiError(
            400, "invalid_arguments", f"the body holds a number JSON cannot take: {error}"
        ) from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_request", f"the body must be a JSON object, not {type(data).__name__}")
    _check_json_tree(data)
    return data


def _check_json_tree(data: Any) -> None:
    """400 for nesting past ``MAX_DEPTH`` or a lone surrogate (``"\\ud800"``) in a string or key.

    JSON escapes can spell lone surrogates, which Python's decoder accepts but no UTF-8
    encoder does: the worker frame or the store then failed with a 500 mid-call.
    """
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_text(value)
        elif isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise _too_deep()
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str):
                    _check_text(key)
                stack.append((item, depth + 1))


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ApiError(400, "bad_request", "the body holds a lone UTF-16 surrogate escape") from None


def _too_deep() -> ApiError:
    return ApiError(400, "bad_request", f"the body is nested deeper than {MAX_DEPTH} levels")


def _too_large(max_bytes: int) -> ApiError:
    return ApiError(413, "body_too_large", f"the request body is larger than {max_bytes} bytes")
