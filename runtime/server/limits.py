"""Request limits: the body size cap and a token-bucket rate limit per API key."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from starlette.requests import Request

from runtime.server.responses import ApiError

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


async def read_json_object(request: Request, max_bytes: int) -> dict[str, Any]:
    """The request's JSON object body; 413 past ``max_bytes`` (before reading it all), 400 if not JSON."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise _too_large(max_bytes)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > max_bytes:
            raise _too_large(max_bytes)
    try:
        data = json.loads(body or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ApiError(400, "bad_request", f"the body is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "bad_request", f"the body must be a JSON object, not {type(data).__name__}")
    return data


def _too_large(max_bytes: int) -> ApiError:
    return ApiError(413, "body_too_large", f"the request body is larger than {max_bytes} bytes")
