"""`toolpen serve`: the HTTP service (tenants by API key, sessions in a shared store)."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated

import typer

from runtime._cli.app import app, example, need_extra
from runtime._cli.app_setup import ServedAppOptions, read_auth
from runtime._cli.mcp import tool_files
from runtime._cli.option_groups import with_option_groups
from runtime._cli.secrets import read_secret
from runtime._cli.setup import WallsOption, WeakIsolationOption
from runtime.store import DEFAULT_STORE_URL, LOCK_TIMEOUT
from sandbox.common.errors import ToolpenError


@app.command(
    "serve",
    epilog=example("toolpen serve --tools samples/ --store sqlite:///service.db --api-key @key.txt=acme"),
)
@with_option_groups
def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8080,
    store: Annotated[
        str,
        typer.Option(
            "--store",
            help="Session store URL (shared by replicas), or env:VAR / @FILE holding it (a password).",
        ),
    ] = DEFAULT_STORE_URL,
    tools: Annotated[
        list[Path] | None, typer.Option("--tools", help="Tool files or directories, shared by every tenant.")
    ] = None,
    *,
    served: ServedAppOptions,
    api_key: Annotated[
        list[str] | None,
        typer.Option(
            "--api-key",
            help="@FILE[=TENANT] or env:VAR[=TENANT] (repeatable; KEY[=TENANT] warns); also TOOLPEN_API_KEYS.",
        ),
    ] = None,
    max_body: Annotated[int, typer.Option("--max-body", help="Largest request body, in bytes.")] = 1 << 20,
    rate: Annotated[float, typer.Option("--rate", help="Requests per second per API key.")] = 50.0,
    burst: Annotated[int, typer.Option("--burst", help="Burst size of the rate limit.")] = 100,
    workers: Annotated[int, typer.Option("--workers", help="Pre-forked sandbox workers per tenant.")] = 2,
    walls: WallsOption = "all",
    allow_weak_isolation: WeakIsolationOption = False,
    lock_wait: Annotated[
        float,
        typer.Option("--lock-wait", help="Seconds a call may wait for its busy session (then 503 busy)."),
    ] = LOCK_TIMEOUT,
    max_queued: Annotated[
        int, typer.Option("--max-queued", help="Calls that may wait for one session (then 503 busy).")
    ] = 64,
    call_threads: Annotated[int, typer.Option("--call-threads", help="Threads running calls.")] = 32,
    header_timeout: Annotated[
        float, typer.Option("--header-timeout", help="Seconds for a request's head to arrive.")
    ] = 10.0,
    body_timeout: Annotated[
        float, typer.Option("--body-timeout", help="Seconds for a request's body to arrive.")
    ] = 30.0,
    request_deadline: Annotated[
        float, typer.Option("--request-deadline", help="Seconds to answer a request (then 504).")
    ] = 120.0,
    access_log: Annotated[
        str, typer.Option("--access-log", help="Access log lines with request ids: text, json or off.")
    ] = "text",
) -> None:
    """Serve tools over HTTP; API keys are required unless HOST is a loopback address."""
    need_extra("serve", "toolpen serve")
    import uvicorn

    from runtime._server import ServerConfig, create_app, parse_api_keys
    from runtime._server.timeouts import uvicorn_options

    env_keys = [item for item in os.environ.get("TOOLPEN_API_KEYS", "").split(",") if item.strip()]
    try:
        if store.startswith(("env:", "@")):
            store = read_secret(store, option="--store")
        config = ServerConfig(
            host=host,
            port=port,
            store=store,
            tool_paths=tuple(tool_files(tools or [])),
            app_path=served.app_path,
            app_agent=served.agent,
            app_fakes=served.fakes,
            app_auth=read_auth(served.auth),
            allow_hosts=tuple(served.allow_host or ()),
            api_keys=parse_api_keys([*map(_key_item, api_key or []), *env_keys]),
            max_body=max_body,
            rate=rate,
            burst=burst,
            workers=workers,
            walls=walls,
            allow_weak_isolation=allow_weak_isolation,
            lock_wait=lock_wait,
            max_queued=max_queued,
            call_threads=call_threads,
            header_timeout=header_timeout,
            body_timeout=body_timeout,
            request_deadline=request_deadline,
            access_log=access_log,  # type: ignore[arg-type]  # checked by config.check()
        )
        service = create_app(config)
    except (OSError, UnicodeDecodeError, ToolpenError) as error:
        typer.echo(f"error: {getattr(error, 'message', error)}", err=True)
        raise typer.Exit(2) from None
    tenants = len(set(config.api_keys.values())) or 1
    typer.echo(f"serving on http://{host}:{port} ({tenants} tenant(s))", err=True)
    if config.access_log != "off":
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        access = logging.getLogger("toolpen.access")
        access.addHandler(handler)
        access.setLevel(logging.INFO)
        access.propagate = False
    uvicorn.run(service, host=host, port=port, log_level="warning", **uvicorn_options(config.header_timeout))


def _key_item(item: str) -> str:
    """``KEY[=TENANT]`` with the key read from where ``@FILE`` or ``env:VAR`` says."""
    given, sep, tenant = item.partition("=")
    return read_secret(given, option="--api-key", suffix="[=TENANT]") + sep + tenant
