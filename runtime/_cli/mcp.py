"""`toolpen mcp [PATH...] [--app APP]`: serve tools, or an exported app's, over MCP (stdio or streamable HTTP)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from runtime._cli.app import app, example, need_extra
from runtime._cli.app_setup import ServedAppOptions, read_auth
from runtime._cli.option_groups import with_option_groups
from runtime._cli.setup import WallsOption, WeakIsolationOption
from runtime.store import DEFAULT_STORE_URL
from sandbox.common.errors import ToolpenError
from sandbox.common.walls import WallsMode

if TYPE_CHECKING:
    from runtime._runtime import Runtime

Transport = Literal["stdio", "http"]


def tool_files(paths: list[Path]) -> list[Path]:
    """The files named, and the ``*.py`` files of the directories named, in a stable order."""
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.py")) if path.is_dir() else [path])
    return files


@app.command("mcp", epilog=example("toolpen mcp samples/ --transport http --port 8000"))
@with_option_groups
def mcp_command(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Tool source files, or directories of them.")
    ] = None,
    *,
    served: ServedAppOptions,
    transport: Annotated[Transport, typer.Option("--transport", help="stdio, or streamable HTTP.")] = "stdio",
    host: Annotated[str, typer.Option("--host", help="HTTP: the address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP: the port to listen on.")] = 8000,
    public: Annotated[
        bool,
        typer.Option("--public", help="HTTP: allow a non-loopback address (there is no authentication)."),
    ] = False,
    store: Annotated[str, typer.Option("--store", help="Session store URL.")] = DEFAULT_STORE_URL,
    read_only: Annotated[
        list[str] | None, typer.Option("--read-only", help="A tool to mark read-only (repeatable).")
    ] = None,
    idempotent: Annotated[
        list[str] | None, typer.Option("--idempotent", help="A tool to mark idempotent (repeatable).")
    ] = None,
    walls: WallsOption = "all",
    allow_weak_isolation: WeakIsolationOption = False,
) -> None:
    """Serve the tools over MCP; each MCP session gets its own toolpen session."""
    need_extra("mcp", "toolpen mcp")
    from runtime._egress import is_loopback_host

    if transport == "http" and not is_loopback_host(host) and not public:
        typer.echo(
            f"error: the MCP server has no authentication; refusing to listen on {host}. Bind to "
            "127.0.0.1 (put an authenticating proxy in front), or pass --public to do it anyway",
            err=True,
        )
        raise typer.Exit(2)
    from runtime._schema import derive_spec
    from runtime.protocols.mcp import serve_http, serve_stdio

    if served.app_path is None and (served.agent is not None or served.fakes or served.auth):
        typer.echo("error: --agent, --fakes and --auth go with --app", err=True)
        raise typer.Exit(2)
    runtime = _runtime(served, store, walls, allow_weak_isolation)
    with runtime:
        for file in tool_files(paths or []):
            try:
                source = file.read_text(encoding="utf-8")
                name = derive_spec(source).name
                runtime.add_tool(
                    source, read_only=name in (read_only or ()), idempotent=name in (idempotent or ())
                )
            except (OSError, UnicodeDecodeError, ToolpenError) as error:
                typer.echo(f"{file}: error: {getattr(error, 'message', error)}", err=True)
                raise typer.Exit(2) from None
        unknown = {*(read_only or ()), *(idempotent or ())} - {tool.name for tool in runtime.tools()}
        if unknown:
            typer.echo(f"error: no tool named {', '.join(sorted(unknown))}", err=True)
            raise typer.Exit(2)
        if transport == "http":
            typer.echo(f"serving {len(runtime.tools())} tool(s) at http://{host}:{port}/mcp", err=True)
            serve_http(runtime, host=host, port=port)
        else:
            import asyncio

            asyncio.run(serve_stdio(runtime))


def _runtime(served: ServedAppOptions, store: str, walls: WallsMode, allow_weak_isolation: bool) -> Runtime:
    """A runtime holding the app (when given), or an empty one; exit 2 when it cannot be made."""
    from runtime._egress import EgressPolicy
    from runtime._runtime import Runtime
    from runtime.app import app_runtime, load_app

    egress = EgressPolicy(allow_hosts=list(served.allow_host or []))
    try:
        if served.app_path is None:
            return Runtime(store=store, egress=egress, walls=walls, allow_weak_isolation=allow_weak_isolation)
        return app_runtime(
            load_app(served.app_path),
            agent=served.agent,
            fakes=served.fakes,
            auth=read_auth(served.auth) or None,
            egress=egress,
            store=store,
            walls=walls,
            pool_size=2,
            allow_weak_isolation=allow_weak_isolation,
        )
    except ToolpenError as error:
        typer.echo(f"error: {error.kind}: {error.message}", err=True)
        raise typer.Exit(2) from None
