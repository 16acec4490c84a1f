"""The HTTP service: ``create_app(config)`` builds the Starlette app that `toolpen serve` runs.

Calls answer 200 whether the tool succeeded or failed (the body's ``success`` says which, with
the structured ``error``); 4xx statuses are for requests the API refuses before running anything:
400 malformed, 401 no or bad API key, 404 unknown tool, session or route, 405 method, 409 name
conflict, 413 body too large, 422 unusable tool source or arguments that do not fit the tool's
schema, 429 rate, 503 ``busy`` (the session stayed locked by other calls: nothing ran).
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from runtime._check import check_source
from runtime._results import ToolResult
from runtime._schema.formats import FORMATS
from runtime._server.access_log import AccessLogMiddleware
from runtime._server.api_document import ID_PATTERN, openapi_document
from runtime._server.config import ServerConfig
from runtime._server.gates import SessionGates
from runtime._server.limits import RateLimiter, read_json_object
from runtime._server.metrics import Metrics, MetricsMiddleware
from runtime._server.responses import ApiError, error_response, http_error, internal_error, route, status_of
from runtime._server.tenants import OPTION_NAMES, Tenant, Tenants
from runtime._server.timeouts import DeadlineMiddleware
from runtime.app import load_app
from runtime.store import open_store
from sandbox.common.errors import Busy, InvalidSource, NotFound, PolicyViolation, StoreError, ToolpenError

NAME = re.compile(ID_PATTERN)

READY_PROBE = "toolpen:readyz"
"""A session id read (never written) by the readiness probe: one cheap query to the store."""


class Service:
    """The state behind the routes: tenants, limits, metrics."""

    def __init__(self, config: ServerConfig) -> None:
        sources = {str(path): Path(path).read_text(encoding="utf-8") for path in config.tool_paths}
        app = load_app(config.app_path) if config.app_path is not None else None
        self.config = config
        self.tenants = Tenants(config, open_store(config.store), sources, app)
        self.limiter = RateLimiter(config.rate, config.burst)
        self.metrics = Metrics()
        self.metrics.tenants.set(sum(1 for _ in self.tenants))
        self.metrics.watch_workers(lambda: [tenant.runtime.workers for tenant in self.tenants])
        self.gates = SessionGates(config.max_queued)
        # calls run here, never in the default pool that the short store reads use
        self.call_threads = ThreadPoolExecutor(config.call_threads, thread_name_prefix="toolpen-call")

    async def run_call(self, tenant: Tenant, session_id: str, **call: Any) -> ToolResult:
        """Run one session call: its turn in the session's queue (on the event loop), then the
        call in a call thread, waiting for the store's lock at most what is left of ``lock_wait``.
        ``Busy`` when the session stayed busy past ``lock_wait``."""
        stored_id = tenant.stored_id(session_id)
        lock_wait = self.config.lock_wait
        async with self.gates.enter(stored_id, lock_wait) as waited:
            run = functools.partial(
                tenant.runtime.call, session_id=stored_id, lock_wait=max(lock_wait - waited, 0.001), **call
            )
            result = await asyncio.get_running_loop().run_in_executor(self.call_threads, run)
        self.metrics.lock_wait.observe(waited)
        if isinstance(result.error, Busy):
            raise result.error
        if isinstance(result.error, StoreError):
            self.metrics.store_errors.inc()
        return result

    async def readiness(self) -> dict[str, str]:
        """``ok`` or what is wrong, for the store and each tenant's worker pool."""
        checks = {"pools": "ok"}
        if dead := [tenant.name for tenant in self.tenants if not tenant.runtime.workers.alive]:
            checks["pools"] = f"{len(dead)} worker pool(s) cannot fork workers"
        try:
            await asyncio.wait_for(asyncio.to_thread(self.tenants.store.get_session, READY_PROBE), 5.0)
            checks["store"] = "ok"
        except TimeoutError:
            checks["store"] = "the store did not answer within 5s"
        except ToolpenError as error:
            self.metrics.store_errors.inc()
            checks["store"] = error.message
        return checks

    def authorize(self, request: Request) -> Tenant:
        """The caller's tenant, after its rate limit; 401 / 429 otherwise."""
        key = _api_key(request)
        tenant = self.tenants.authenticate(key)
        client = request.client.host if request.client else "unknown"
        if tenant is None:
            self._limit(f"ip:{client}")
            self.metrics.refused.labels("auth").inc()
            raise ApiError(
                401,
                "unauthorized",
                "a valid API key is required: 'Authorization: Bearer KEY'",
                headers={"WWW-Authenticate": "Bearer"},
            )
        self._limit(f"ip:{client}" if self.tenants.open else f"key:{key}")
        return tenant

    def _limit(self, client: str) -> None:
        try:
            self.limiter.check(client)
        except ApiError:
            self.metrics.refused.labels("rate").inc()
            raise


def _api_key(request: Request) -> str | None:
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and key.strip():
        return key.strip()
    return request.headers.get("x-api-key")


def _checked_name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise ApiError(400, "bad_request", f"{what} must match {NAME.pattern} (not '.' or '..')")
    return value


def _field(body: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    value = body.get(name, default)
    if value is not default and not isinstance(value, kind):
        raise ApiError(400, "bad_request", f"{name!r} must be a {kind.__name__}")
    return value


CONTEXT_FIELDS: dict[str, type] = {
    "state": dict,
    "user_content": dict,
    "events": list,
    "invocation_id": str,
    "agent_name": str,
    "function_call_id": str,
    "session_id": str,
}
"""The call context's known fields and their types. A wrong type used to fail only when the
call's events were stored, after the tool had run: a 500 and a call left begun (retries then
answered ``unknown_outcome``)."""


def _context(body: dict[str, Any]) -> dict[str, Any]:
    context = _field(body, "context", dict, {})
    for name, kind in CONTEXT_FIELDS.items():
        if name in context and not isinstance(context[name], kind):
            raise ApiError(400, "bad_request", f"context.{name} must be a {kind.__name__}")
    if "function_call_id" in context:  # it names the call when call_id is not given: same rule
        _checked_name(context["function_call_id"], "context.function_call_id")
    return context


def _tool_view(tenant: Tenant, tool: Any, fmt: str) -> dict[str, Any]:
    return {
        "name": tool.name,
        "shared": tool.name in tenant.shared,
        **{option: getattr(tool.options, option) for option in OPTION_NAMES},
        "schema": tool.schema(fmt),
    }


def _call_id(request: Request, body: dict[str, Any]) -> str | None:
    in_body = body.get("call_id")
    in_header = request.headers.get("idempotency-key")
    if in_body is not None and in_header is not None and in_body != in_header:
        raise ApiError(400, "bad_request", "call_id and the Idempotency-Key header differ")
    chosen = in_body if in_body is not None else in_header
    return None if chosen is None else _checked_name(chosen, "call_id")


def create_app(config: ServerConfig) -> Starlette:
    """The service for ``config``: starts each tenant's workers now, stops them at shutdown."""
    config.check()
    service = Service(config)
    max_body = config.max_body

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        checks = await service.readiness()
        ready = all(check == "ok" for check in checks.values())
        return JSONResponse(
            {"status": "ready" if ready else "unready", "checks": checks}, 200 if ready else 503
        )

    async def metrics(request: Request) -> Response:
        return Response(service.metrics.render(), media_type=service.metrics.content_type)

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_document())

    async def add_tool(request: Request) -> Response:
        tenant = service.authorize(request)
        body = await read_json_object(request, max_body, config.body_timeout)
        source = _field(body, "source", str, None)
        if source is None:
            raise ApiError(400, "bad_request", "'source' (the tool's Python source) is required")
        name = _field(body, "name", str, None)
        options = {option: _field(body, option, bool, False) for option in OPTION_NAMES}
        replace = _field(body, "replace", bool, False)
        try:
            tool = await asyncio.to_thread(tenant.register, source, name, options, replace)
        except (InvalidSource, PolicyViolation) as error:
            diagnostics = [
                d.to_dict() for d in check_source(source, walls=tenant.runtime.walls) if d.level == "error"
            ]
            return JSONResponse({"error": error.to_dict(), "diagnostics": diagnostics}, status_code=422)
        view = _tool_view(tenant, tool, "openai")
        del view["schema"]
        return JSONResponse({**view, "schemas": {fmt: tool.schema(fmt) for fmt in FORMATS}}, status_code=201)

    async def list_tools(request: Request) -> Response:
        tenant = service.authorize(request)
        fmt = request.query_params.get("format", "openai")
        if fmt not in FORMATS:
            raise ApiError(400, "bad_request", f"format must be one of {', '.join(FORMATS)}")
        await asyncio.to_thread(tenant.sync, force=True)
        tools = [_tool_view(tenant, tool, fmt) for tool in tenant.runtime.tools()]
        return JSONResponse({"format": fmt, "tools": tools})

    async def delete_tool(request: Request) -> Response:
        tenant = service.authorize(request)
        await asyncio.to_thread(tenant.unregister, request.path_params["name"])
        return Response(status_code=204)

    async def call_tool(request: Request) -> Response:
        tenant = service.authorize(request)
        session_id = _checked_name(request.path_params["session_id"], "the session id")
        body = await read_json_object(request, max_body, config.body_timeout)
        name = _field(body, "tool", str, None)
        if name is None:
            raise ApiError(400, "bad_request", "'tool' (the tool's name) is required")
        args = _field(body, "args", dict, {})
        context = _context(body)
        user_id = _checked_name(_field(body, "user_id", str, tenant.runtime.user_id), "user_id")
        call_id = _call_id(request, body)
        tool = await asyncio.to_thread(tenant.find_tool, name)
        tool.arguments(args)
        try:
            result = await service.run_call(
                tenant, session_id, name=name, args=args, context=context, call_id=call_id, user_id=user_id
            )
        except Busy as error:
            service.metrics.calls.labels("busy").inc()
            raise ApiError(503, "busy", error.message, headers={"Retry-After": "1"}) from None
        outcome = "replayed" if result.replayed else "success" if result.success else "failure"
        service.metrics.calls.labels(outcome).inc()
        return JSONResponse(
            {
                **result.to_dict(),
                "call_id": result.call_id,
                "session_id": session_id,
                "replayed": result.replayed,
            }
        )

    async def list_sessions(request: Request) -> Response:
        tenant = service.authorize(request)
        summaries = await asyncio.to_thread(tenant.runtime.store.list_sessions, tenant.name)
        return JSONResponse(
            {"sessions": [{**s.model_dump(), "id": tenant.public_id(s.id)} for s in summaries]}
        )

    async def get_session(request: Request) -> Response:
        tenant = service.authorize(request)
        session_id = _checked_name(request.path_params["session_id"], "the session id")
        session = await asyncio.to_thread(tenant.runtime.store.get_session, tenant.stored_id(session_id))
        if session is None or session.app_name != tenant.name:
            raise NotFound(f"session {session_id!r} not found")
        return JSONResponse({**session.to_dict(), "id": session_id})

    async def delete_session(request: Request) -> Response:
        tenant = service.authorize(request)
        session_id = _checked_name(request.path_params["session_id"], "the session id")
        stored_id = tenant.stored_id(session_id)
        # Like get_session: only the tenant's own app. Another app sharing the store (a CLI
        # run, an embedding host) may hold an id that starts with "<tenant>:".
        session = await asyncio.to_thread(tenant.runtime.store.get_session, stored_id)
        if (
            session is None
            or session.app_name != tenant.name
            or not await asyncio.to_thread(tenant.runtime.store.delete_session, stored_id)
        ):
            raise NotFound(f"session {session_id!r} not found")
        return Response(status_code=204)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            service.call_threads.shutdown(wait=True, cancel_futures=True)
            service.tenants.close()

    async def api_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, ApiError)
        return error_response(error.status, {"kind": error.kind, "message": error.message}, error.headers)

    async def toolpen_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, ToolpenError)
        if isinstance(error, StoreError):
            service.metrics.store_errors.inc()
        return error_response(status_of(error), error.to_dict())

    routes = [
        route("/healthz", GET=healthz),
        route("/readyz", GET=readyz),
        route("/metrics", GET=metrics),
        route("/openapi.json", GET=openapi),
        route("/v1/tools", GET=list_tools, POST=add_tool),
        route("/v1/tools/{name}", DELETE=delete_tool),
        route("/v1/sessions", GET=list_sessions),
        route("/v1/sessions/{session_id}", GET=get_session, DELETE=delete_session),
        route("/v1/sessions/{session_id}/calls", POST=call_tool),
    ]
    return Starlette(
        routes=routes,
        middleware=[
            Middleware(AccessLogMiddleware, log_format=config.access_log),
            Middleware(MetricsMiddleware, metrics=service.metrics),
            Middleware(DeadlineMiddleware, seconds=config.request_deadline),
        ],
        exception_handlers={
            ApiError: api_error,
            ToolpenError: toolpen_error,
            HTTPException: http_error,
            Exception: internal_error,
        },
        lifespan=lifespan,
    )
