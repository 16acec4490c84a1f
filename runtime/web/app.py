"""The playground's HTTP side: the page, and a small JSON API over check, schema, run and the session.

One session (``web``) in the store given; runs go through a ``Runtime`` with the walls given, one
at a time. The source is written back to a file only on an explicit save, and only to a file the
command was started with.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from runtime.errors import InvalidArguments, InvalidSource, ToolpenError
from runtime.web.guard import Guard
from sandbox.wire import WallsMode

STATIC = Path(__file__).parent / "static"
SESSION = "web"
FORMATS = {
    "chat": ("openai", False),
    "responses": ("responses", False),
    "responses_strict": ("responses", True),
    "gemini": ("gemini", False),
    "mcp": ("mcp", False),
}
"""The schema views of the page: name -> (format, strict)."""


@dataclass(frozen=True)
class WebConfig:
    """What `toolpen web` was started with."""

    token: str
    files: tuple[Path, ...] = ()
    store: str = "memory://"
    walls: WallsMode = "all"
    host: str = "127.0.0.1"
    allow_weak_isolation: bool = False


def file_kind(source: str) -> str:
    """``tool``, ``callbacks`` or ``fakes``: what a file in the list defines."""
    from runtime.callbacks import looks_like_hooks
    from runtime.schema import parse_tool_source

    try:
        module = parse_tool_source(source)
    except InvalidSource:
        return "tool"
    if not looks_like_hooks(module):
        return "tool"
    return "fakes" if "def fake_" in source else "callbacks"


def check_view(source: str, walls: WallsMode) -> dict[str, Any]:
    """The diagnostics of `toolpen check` and, when the tool is usable, its schema in every format."""
    from runtime.check import check_source
    from runtime.schema import derive_spec
    from runtime.schema.formats import lower

    diagnostics = [d.to_dict() for d in check_source(source, walls=walls, tool_required=False)]
    view: dict[str, Any] = {"diagnostics": diagnostics, "schemas": {}, "parameters": None, "name": None}
    try:
        spec = derive_spec(source)
    except InvalidSource:
        return view
    if spec.errors:
        return view
    view["name"], view["parameters"] = spec.name, spec.parameters
    for key, (fmt, strict) in FORMATS.items():
        try:
            view["schemas"][key] = lower(spec, fmt, strict=strict).schema
        except InvalidSource as error:
            view["schemas"][key] = {"error": error.message}
    return view


class Playground:
    """The page's state: the files it may save, and the runtime its runs go through."""

    def __init__(self, config: WebConfig) -> None:
        from runtime.runtime import Runtime

        self.config = config
        self.files = {str(path): path for path in config.files}
        self.runtime = Runtime(
            store=config.store,
            walls=config.walls,
            pool_size=1,
            app_name="toolpen-web",
            allow_weak_isolation=config.allow_weak_isolation,
        )
        self.lock = threading.Lock()

    def tools(self) -> list[dict[str, Any]]:
        listed = []
        for name, path in self.files.items():
            try:
                source = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                listed.append({"path": name, "error": str(error)})
                continue
            listed.append({"path": name, "kind": file_kind(source), "source": source})
        return listed

    def run(self, source: str, args: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        """One call of the edited tool in session ``web``, with the state before and after."""
        from runtime.cli.context import prepare_session

        with self.lock:
            try:
                tool = self.runtime.add_tool(source, replace=True)
                prepare_session(self.runtime, SESSION, context, fresh=False)
            except ToolpenError as error:
                return {"success": False, "error": error.to_dict(), "state_before": None, "duration_ms": 0}
            before = self.runtime.store.require_session(SESSION).state
            started = time.perf_counter()
            result = self.runtime.call(tool.name, args, context=context, session_id=SESSION)
            duration = (time.perf_counter() - started) * 1000
        return {**result.to_dict(), "state_before": before, "duration_ms": round(duration, 1)}

    def timeline(self) -> dict[str, Any]:
        session = self.runtime.store.get_session(SESSION)
        if session is None:
            return {"state": {}, "events": []}
        return {"state": session.state, "events": [event.to_dict() for event in session.events]}

    def reset(self) -> None:
        with self.lock:
            self.runtime.store.delete_session(SESSION)

    def save(self, path: str, source: str) -> None:
        if path not in self.files:
            raise InvalidArguments(f"{path!r} is not one of the files this page was started with")
        self.files[path].write_text(source, encoding="utf-8")


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        raise InvalidArguments("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise InvalidArguments("the request body is not a JSON object")
    return body


def create_app(config: WebConfig) -> Guard:
    """The playground as an ASGI app, behind its guard (token, Host, Origin)."""
    playground = Playground(config)

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def tools(request: Request) -> JSONResponse:
        return JSONResponse({"tools": await run_in_threadpool(playground.tools), "walls": config.walls})

    async def check(request: Request) -> JSONResponse:
        body = await _body(request)
        return JSONResponse(await run_in_threadpool(check_view, str(body.get("source", "")), config.walls))

    async def run(request: Request) -> JSONResponse:
        body = await _body(request)
        args, context = body.get("args") or {}, body.get("context") or {}
        if not isinstance(args, dict) or not isinstance(context, dict):
            raise InvalidArguments("args and context are JSON objects")
        return JSONResponse(
            await run_in_threadpool(playground.run, str(body.get("source", "")), args, context)
        )

    async def timeline(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(playground.timeline))

    async def reset(request: Request) -> JSONResponse:
        await run_in_threadpool(playground.reset)
        return JSONResponse({"reset": True})

    async def save(request: Request) -> JSONResponse:
        body = await _body(request)
        await run_in_threadpool(playground.save, str(body.get("path", "")), str(body.get("source", "")))
        return JSONResponse({"saved": body.get("path")})

    async def refused(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ToolpenError)
        return JSONResponse({"error": error.to_dict()}, status_code=422)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        playground.runtime.close()

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/tools", tools),
            Route("/api/check", check, methods=["POST"]),
            Route("/api/run", run, methods=["POST"]),
            Route("/api/timeline", timeline),
            Route("/api/reset", reset, methods=["POST"]),
            Route("/api/save", save, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC)),
        ],
        exception_handlers={ToolpenError: refused},
        lifespan=lifespan,
    )
    return Guard(app, token=config.token, bound_host=config.host)
