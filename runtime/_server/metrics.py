"""Prometheus metrics of one service instance (its own registry, text exposition format)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from runtime._runtime import WorkerStatus

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""Methods counted by name; any other is ``other`` (the server accepts any token as a method,
so an unauthenticated client could otherwise add one label value, a new series, per request)."""


class Metrics:
    """Request counts and latency by route, tool call outcomes, refusals by limit."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "toolpen_http_requests", "HTTP requests.", ["method", "route", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "toolpen_http_request_duration_seconds",
            "HTTP request latency.",
            ["route"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.calls = Counter(
            "toolpen_tool_calls",
            "Tool calls by outcome (success, failure, replayed, busy).",
            ["outcome"],
            registry=self.registry,
        )
        self.refused = Counter(
            "toolpen_refused_requests",
            "Requests refused by a limit or by authentication.",
            ["reason"],
            registry=self.registry,
        )
        self.tenants = Gauge("toolpen_tenants", "Tenants served.", registry=self.registry)
        self.store_errors = Counter(
            "toolpen_store_errors", "Session store failures seen by requests.", registry=self.registry
        )
        self.lock_wait = Histogram(
            "toolpen_session_lock_wait_seconds",
            "Time a call waited behind other calls of its session in this replica.",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )

    def watch_workers(self, pools: Callable[[], Iterable[WorkerStatus]]) -> None:
        """Gauges of the worker pools' saturation, read from ``pools()`` at each scrape."""
        Gauge(
            "toolpen_pool_workers", "Pre-forked sandbox workers, all tenants.", registry=self.registry
        ).set_function(lambda: sum(pool.size for pool in pools()))
        Gauge(
            "toolpen_pool_calls_in_flight",
            "Calls running in or waiting for a sandbox worker, all tenants (saturated above the workers).",
            registry=self.registry,
        ).set_function(lambda: sum(pool.in_use for pool in pools()))

    def render(self) -> bytes:
        """The text exposition of every metric."""
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Counts and times every HTTP request by its route template (never by its raw path)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500
        started = time.perf_counter()

        async def send_and_watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_watch)
        finally:
            route = getattr(scope.get("route"), "path", "unmatched")
            method = scope["method"] if scope["method"] in METHODS else "other"
            self.metrics.requests.labels(method, route, str(status)).inc()
            self.metrics.latency.labels(route).observe(time.perf_counter() - started)
