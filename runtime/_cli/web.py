"""`toolpen web`: the local playground page for the tools, callbacks, fakes and turns in PATH, or an app."""

from __future__ import annotations

import secrets
import socket
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from runtime._cli.app import app, example, need_extra
from runtime._cli.app_setup import AgentOption, FakesOption
from runtime._cli.setup import StoreOption, WallsOption, WeakIsolationOption
from sandbox.common.errors import ToolpenError

WEB_STORE = "sqlite:///toolpen-web.db"


def split_app(paths: list[Path]) -> tuple[Path | None, list[Path]]:
    """The exported app among the paths (a zip, or a folder holding app.json|yaml), and the rest."""
    from runtime.app._loader import APP_FILES, app_folder

    def is_app(path: Path) -> bool:
        if path.is_file():
            return path.suffix == ".zip"
        return path.is_dir() and any((app_folder(path) / name).is_file() for name in APP_FILES)

    apps = [path for path in paths if is_app(path)]
    if len(apps) > 1:
        typer.echo(f"error: one app at a time, not {', '.join(map(str, apps))}", err=True)
        raise typer.Exit(2)
    return (apps[0] if apps else None), [path for path in paths if not apps or path != apps[0]]


@app.command("web", epilog=example("toolpen web samples/"))
def web_command(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Tool, callback, fake and turn files or folders, or an exported app (zip or folder)."
        ),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (0: any free port).")] = 8765,
    store: StoreOption = WEB_STORE,
    walls: WallsOption = "all",
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser.")] = False,
    public: Annotated[
        bool, typer.Option("--public", help="Allow a non-loopback address (anyone with the token runs code).")
    ] = False,
    agent: AgentOption = None,
    fakes: FakesOption = False,
    allow_weak_isolation: WeakIsolationOption = False,
) -> None:
    """Open a playground page: edit a tool, see its diagnostics and schemas, run it or a scripted turn, watch the state.

    The page needs the token in the printed URL (its #token= part, which the browser never sends
    to a server); it binds 127.0.0.1 unless --public.
    """
    need_extra("serve", "toolpen web")
    import uvicorn

    from runtime._egress import is_loopback_host
    from runtime._web import WebConfig, create_app

    if not is_loopback_host(host) and not public:
        typer.echo(
            f"error: {host} is not a loopback address: pass --public to serve the page there", err=True
        )
        raise typer.Exit(2)
    missing = [str(path) for path in paths or [] if not path.exists()]
    if missing:
        typer.echo(f"error: no such file: {', '.join(missing)}", err=True)
        raise typer.Exit(2)
    app_path, files = split_app(paths or [])
    token = secrets.token_urlsafe(24)
    config = WebConfig(
        token=token,
        files=tuple(files),
        store=store,
        walls=walls,
        host=host,
        allow_weak_isolation=allow_weak_isolation,
        app=app_path,
        agent=agent,
        fakes=fakes,
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
    url = f"http://{shown}:{listener.getsockname()[1]}/#token={token}"
    typer.echo(f"toolpen web: open {url}", err=True)
    if public and not is_loopback_host(host):
        typer.echo(
            "warning: --public serves plain HTTP: the token crosses the network in clear, and anyone "
            "who has it runs code on this machine as you",
            err=True,
        )
    if not no_browser:
        webbrowser.open(url)
    server = uvicorn.Server(uvicorn.Config(service, log_level="warning"))
    server.run(sockets=[listener])
