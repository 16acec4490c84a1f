"""`toolpen run`: run one tool from a file, in a session that persists between runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from runtime.cli.app import app
from runtime.egress import EgressPolicy
from runtime.errors import InvalidArguments, InvalidSource, ToolpenError
from runtime.runtime import Runtime, ToolResult
from runtime.store import DEFAULT_STORE_URL

UNUSABLE = {"invalid_source", "policy", "invalid_arguments"}
"""Error kinds that mean the source or the arguments are unusable (exit 2)."""


def _json_option(text: str | None, what: str) -> dict[str, Any]:
    """A JSON object given inline or as ``@path``."""
    if not text:
        return {}
    try:
        raw = Path(text[1:]).read_text(encoding="utf-8") if text.startswith("@") else text
        value = json.loads(raw)
    except OSError as error:
        raise InvalidArguments(f"{what}: cannot read {text[1:]}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise InvalidArguments(f"{what} is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise InvalidArguments(f"{what} must be a JSON object")
    return value


def _python_files(path: Path) -> list[Path]:
    return sorted(path.glob("*.py")) if path.is_dir() else [path]


def _register_extras(rt: Runtime, tool_paths: list[Path], openapi: list[str], auth: list[str]) -> None:
    """Register what ``tools.<name>(...)`` may reach: Python tool files and OpenAPI toolsets."""
    for path in tool_paths:
        for file in _python_files(path):
            rt.add_tool_file(file, replace=True)
    secrets = dict(item.split("=", 1) for item in auth if "=" in item)
    for item in openapi:
        toolset, sep, spec = item.partition("=")
        if not sep:
            raise InvalidArguments(f"--openapi takes NAME=SPEC, not {item!r}")
        rt.add_openapi(toolset, spec, auth=secrets or None, replace=True)


def _print_readable(console: Console, name: str, result: ToolResult) -> None:
    if result.success:
        console.print(
            f"[green]ok[/green] {name}"
            + (" [dim](stored result, not run again)[/dim]" if result.replayed else "")
        )
        console.print_json(json.dumps(result.output, ensure_ascii=False))
    else:
        error = result.error
        where = f" (line {error.line})" if error and error.line else ""
        console.print(
            f"[red]failed[/red] {name}: {error.kind if error else 'error'}{where}: {error.message if error else ''}"
        )
    if result.logs:
        console.print("[bold]logs[/bold]")
        console.print(result.logs.rstrip("\n"), markup=False, highlight=False)
    if result.state_delta.get("set") or result.state_delta.get("deleted"):
        console.print("[bold]state delta[/bold]")
        console.print_json(json.dumps(result.state_delta, ensure_ascii=False))


@app.command("run")
def run_tool(
    file: Annotated[Path, typer.Argument(help="Python file with the tool's source.")],
    name: Annotated[str | None, typer.Option("--name", help="Entry function (default: the first).")] = None,
    args: Annotated[str | None, typer.Option("--args", help="Arguments as a JSON object, or @file.")] = None,
    context: Annotated[
        str | None,
        typer.Option("--context", help="Context as JSON or @file: user_content, state, events, ..."),
    ] = None,
    store: Annotated[str, typer.Option("--store", help="Session store URL.")] = DEFAULT_STORE_URL,
    session: Annotated[
        str, typer.Option("--session", help="Session id; state persists across runs.")
    ] = "local",
    as_json: Annotated[bool, typer.Option("--json", help="Print exactly one JSON object on stdout.")] = False,
    tools: Annotated[
        list[Path] | None, typer.Option("--tools", help="Python tool file or folder (repeatable).")
    ] = None,
    openapi: Annotated[
        list[str] | None, typer.Option("--openapi", help="OpenAPI toolset NAME=SPEC (repeatable).")
    ] = None,
    auth: Annotated[
        list[str] | None, typer.Option("--auth", help="Secret for an OpenAPI security scheme, SCHEME=SECRET.")
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option("--allow-host", help="Let ces_requests reach HOST[:PORT] (repeatable)."),
    ] = None,
) -> None:
    """Run a tool once and print its result, logs and state change.

    Exit 0 when the tool succeeded, 1 when it failed, 2 when the source or the arguments are unusable.
    """
    console = Console(stderr=False, highlight=False)
    result: ToolResult
    try:
        source = file.read_text(encoding="utf-8")
    except OSError as error:
        result = ToolResult(success=False, error=InvalidSource(f"cannot read {file}: {error.strerror}"))
    else:
        result = _run(
            source,
            name,
            args,
            context,
            store,
            session,
            tools or [],
            openapi or [],
            auth or [],
            allow_host or [],
        )
    tool_name = name or file.stem
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        _print_readable(console, tool_name, result)
    if not result.success:
        raise typer.Exit(2 if result.error and result.error.kind in UNUSABLE else 1)


def _run(
    source: str,
    name: str | None,
    args: str | None,
    context: str | None,
    store: str,
    session: str,
    tools: list[Path],
    openapi: list[str],
    auth: list[str],
    allow_host: list[str],
) -> ToolResult:
    try:
        call_args = _json_option(args, "--args")
        call_context = _json_option(context, "--context")
        with Runtime(store=store, egress=EgressPolicy(allow_hosts=allow_host), pool_size=1) as rt:
            _register_extras(rt, tools, openapi, auth)
            tool = rt.add_tool(source, name, replace=True)
            return rt.call(tool.name, call_args, context=call_context, session_id=session)
    except ToolpenError as error:
        return ToolResult(success=False, error=error)
