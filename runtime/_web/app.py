"""The playground's HTTP side: the page, and a small JSON API over check, schema, runs, turns and sessions.

The work is ``Playground``'s; the source is written back to a file only on an explicit save, and
only to a file the page lists.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from runtime._web.chat import ChatSettings
from runtime._web.guard import Guard
from runtime._web.playground import Playground, WebConfig
from sandbox.common.errors import InvalidArguments, InvalidSource, ToolpenError
from sandbox.common.walls import WallsMode

STATIC = Path(__file__).parent / "static"
FORMATS = {
    "chat": ("openai", False),
    "responses": ("responses", False),
    "responses_strict": ("responses", True),
    "gemini": ("gemini", False),
    "mcp": ("mcp", False),
}
"""The schema views of the page: name -> (format, strict)."""


def check_view(source: str, walls: WallsMode) -> dict[str, Any]:
    """The diagnostics of `toolpen check` and, when the tool is usable, its schema in every format."""
    from runtime._check import check_source
    from runtime._schema import parse_tool_source, spec_from_module
    from runtime._schema.formats import lower

    diagnostics = [d.to_dict() for d in check_source(source, walls=walls, tool_required=False)]
    view: dict[str, Any] = {
        "diagnostics": diagnostics,
        "schemas": {},
        "parameters": None,
        "name": None,
        "parses": True,
    }
    try:
        module = parse_tool_source(source)
    except InvalidSource:
        view["parses"] = False
        return view
    try:
        spec = spec_from_module(module)
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


async def _body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        raise InvalidArguments("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise InvalidArguments("the request body is not a JSON object")
    return body


def _edits(body: dict[str, Any]) -> dict[str, str]:
    """The page's unsaved edits: listed path -> source."""
    edits = body.get("edits") or {}
    if not isinstance(edits, dict) or not all(isinstance(v, str) for v in edits.values()):
        raise InvalidArguments("edits is a JSON object of path -> source")
    return {str(path): source for path, source in edits.items()}


def create_app(config: WebConfig) -> Guard:
    """The playground as an ASGI app, behind its guard (token, Host, Origin)."""
    playground = Playground(config)

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    async def tools(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(playground.describe))

    async def file(request: Request) -> JSONResponse:
        return JSONResponse(await run_in_threadpool(playground.read, request.query_params.get("path", "")))

    async def check(request: Request) -> JSONResponse:
        body = await _body(request)
        return JSONResponse(await run_in_threadpool(check_view, str(body.get("source", "")), config.walls))

    async def run(request: Request) -> JSONResponse:
        body = await _body(request)
        args, context = body.get("args") or {}, body.get("context") or {}
        if not isinstance(args, dict) or not isinstance(context, dict):
            raise InvalidArguments("args and context are JSON objects")
        source = str(body.get("source", ""))
        return JSONResponse(await run_in_threadpool(playground.run, source, args, context, _edits(body)))

    async def turn(request: Request) -> JSONResponse:
        body = await _body(request)
        path = body.get("path")
        text, where = str(body.get("script", "")), str(path) if path else None
        return JSONResponse(await run_in_threadpool(playground.turn, text, where, _edits(body)))

    async def timeline(request: Request) -> JSONResponse:
        session = request.query_params.get("session") or playground.session
        return JSONResponse(await run_in_threadpool(playground.timeline, session))

    async def reset(request: Request) -> JSONResponse:
        session = str((await _body(request)).get("session") or playground.session)
        await run_in_threadpool(playground.reset, session)
        return JSONResponse({"reset": session})

    async def save(request: Request) -> JSONResponse:
        body = await _body(request)
        expected = None if body.get("force") or body.get("expected") is None else str(body["expected"])
        path, source = str(body.get("path", "")), str(body.get("source", ""))
        await run_in_threadpool(lambda: playground.save(path, source, expected=expected))
        return JSONResponse({"saved": body.get("path")})

    async def chat(request: Request) -> JSONResponse:
        body = await _body(request)
        settings = ChatSettings.from_body(body)
        text = str(body.get("text", ""))
        return JSONResponse(await run_in_threadpool(playground.chat, text, settings, _edits(body)))

    async def reset_chat(request: Request) -> JSONResponse:
        await run_in_threadpool(playground.reset_chat)
        return JSONResponse({"reset": True})

    async def cancel(request: Request) -> JSONResponse:
        return JSONResponse({"cancelled": await run_in_threadpool(playground.cancel)})

    async def refused(request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, ToolpenError)
        return JSONResponse({"error": error.to_dict()}, status_code=422)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        playground.close()

    app = Starlette(
        routes=[
            Route("/", page),
            Route("/api/tools", tools),
            Route("/api/file", file),
            Route("/api/check", check, methods=["POST"]),
            Route("/api/run", run, methods=["POST"]),
            Route("/api/turn", turn, methods=["POST"]),
            Route("/api/timeline", timeline),
            Route("/api/reset", reset, methods=["POST"]),
            Route("/api/save", save, methods=["POST"]),
            Route("/api/cancel", cancel, methods=["POST"]),
            Route("/api/chat", chat, methods=["POST"]),
            Route("/api/chat/reset", reset_chat, methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC)),
        ],
        exception_handlers={ToolpenError: refused},
        lifespan=lifespan,
    )
    return Guard(app, token=config.token, bound_host=config.host)
