"""`toolpen web`: the local playground page for the tools in PATH."""

from __future__ import annotations

import secrets
import socket
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from runtime.cli.app import app, example, need_extra
from runtime.cli.mcp import tool_files
from runtime.cli.setup import StoreOption, WallsOption, WeakIsolationOption
from runtime.errors import ToolpenError

WEB_STORE = "sqlite:///toolpen-web.db"


@app.command("web", epilog=example("toolpen web samples/"))
def web_command(
    paths: Annotated[list[Path] | None, typer.Argument(help="Tool files, or directories of them.")] = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")] = 8765,
    store: StoreOption = WEB_STORE,
    walls: WallsOption = "all",
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser.")] = False,
    public: Annotated[
        bool, typer.Option("--public", help="Allow a non-loopback address (anyone with the token runs code).")
    ] = False,
    allow_weak_isolation: WeakIsolationOption = False,
) -> None:
    """Open a playground page: edit a tool, see its diagnostics and schemas, run it, watch the state.

    The page needs the token in the printed URL; it binds 127.0.0.1 unless --public.
    """
    need_extra("serve", "toolpen web")
    import uvicorn

    from runtime.web import WebConfig, create_app, is_loopback_host

    if not is_loopback_host(host) and not public:
        typer.echo(
            f"error: {host} is not a loopback address: pass --public to serve the page there", err=True
        )
        raise typer.Exit(2)
    files = tool_files(paths or [])
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        typer.echo(f"error: no such file: {', '.join(missing)}", err=True)
        raise typer.Exit(2)
    token = secrets.token_urlsafe(24)
    config = WebConfig(
        token=token,
        files=tuple(files),
        store=store,
        walls=walls,
        host=host,
        allow_weak_isolation=allow_weak_isolation,
    )
    try:
        service = create_app(config)
    except ToolpenError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(2) from None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
        listener.listen(128)  # connections made once the URL is printed wait for the server
    except OSError as error:
        typer.echo(f"error: cannot listen on {host}:{port}: {error.strerror}", err=True)
        raise typer.Exit(2) from None
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{listener.getsockname()[1]}/?token={token}"
    typer.echo(f"toolpen web: open {url}", err=True)
    if not no_browser:
        webbrowser.open(url)
    server = uvicorn.Server(uvicorn.Config(service, log_level="warning"))
    server.run(sockets=[listener])
