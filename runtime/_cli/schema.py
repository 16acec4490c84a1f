"""`toolpen schema` and `toolpen check`: what a model will see of a tool, and what is wrong with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from runtime._cli.app import app, example
from runtime._cli.setup import WallsOption
from runtime._schema.formats import Format, lower
from sandbox.common.errors import InvalidSource

EXIT_PROBLEMS = 1
EXIT_UNUSABLE = 2


def _read(file: Path) -> str | None:
    """The file's text, or None after telling stderr why it cannot be read."""
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        typer.echo(f"{file}: error: cannot read the file: {reason}", err=True)
        return None


@app.command("schema", epilog=example("toolpen schema samples/get_customer.py --format responses --strict"))
def schema_command(
    file: Annotated[Path | None, typer.Argument(help="The tool's Python source file.")] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="The entry function (default: the first one).")
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="The target API's tool format.")] = "openai",
    strict: Annotated[bool, typer.Option("--strict", help="OpenAI strict mode (openai, responses).")] = False,
    openapi: Annotated[
        list[str] | None,
        typer.Option("--openapi", help="Also the tools of an OpenAPI toolset, NAME=SPEC (repeatable)."),
    ] = None,
) -> None:
    """Print the tool definition a model sees, derived from the source without running it.

    With --openapi, print a JSON list: the file's tool (if a file is given), then one tool per
    operation of each OpenAPI document.
    """
    if file is None and not openapi:
        typer.echo("error: give a tool file, --openapi NAME=SPEC, or both", err=True)
        raise typer.Exit(EXIT_UNUSABLE)
    definitions = [] if file is None else [_file_definition(file, name, fmt, strict)]
    for item in openapi or []:
        definitions += _openapi_definitions(item, fmt, strict)
    shown = definitions if openapi else definitions[0]
    typer.echo(json.dumps(shown, indent=2, ensure_ascii=False))


def _file_definition(file: Path, name: str | None, fmt: str, strict: bool) -> dict:
    from runtime._schema import derive_spec

    source = _read(file)
    if source is None:
        raise typer.Exit(EXIT_UNUSABLE)
    try:
        spec = derive_spec(source, name)
    except InvalidSource as error:
        typer.echo(f"{file}:{error.line or 1}:{error.col or 1}: error: {error.message}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    for diagnostic in spec.diagnostics:
        typer.echo(diagnostic.format(str(file)), err=True)
    if spec.errors:
        raise typer.Exit(EXIT_PROBLEMS)
    try:
        lowered = lower(spec, fmt, strict=strict)
    except InvalidSource as error:
        typer.echo(f"{file}:{error.line or 1}:{error.col or 1}: error: {error.message}", err=True)
        raise typer.Exit(EXIT_PROBLEMS) from None
    for note in lowered.notes:
        typer.echo(f"note: {note}", err=True)
    return lowered.schema


def _openapi_definitions(item: str, fmt: str, strict: bool) -> list[dict]:
    from runtime._openapi_toolset import OpenApiToolset

    toolset, sep, path = item.partition("=")
    if not sep:
        typer.echo(f"error: --openapi takes NAME=SPEC, not {item!r}", err=True)
        raise typer.Exit(EXIT_UNUSABLE)
    try:
        tools = OpenApiToolset.from_file(toolset, path).tools
        lowered = [lower(tool.spec, fmt, strict=strict) for tool in tools]
    except InvalidSource as error:
        typer.echo(f"{path}: error: {error.message}", err=True)
        raise typer.Exit(EXIT_UNUSABLE) from None
    for result in lowered:
        for note in result.notes:
            typer.echo(f"note: {note}", err=True)
    return [result.schema for result in lowered]


@app.command("check", epilog=example("toolpen check samples/*.py --json"))
def check_command(
    files: Annotated[list[Path], typer.Argument(help="Tool source files to check.")],
    walls: WallsOption = "all",
    as_json: Annotated[
        bool,
        typer.Option(
            "--json", help='Print one JSON object: {"files": [{"file", "diagnostics"}], "errors", ...}.'
        ),
    ] = False,
) -> None:
    """Report schema, docstring, undefined-name and sandbox-policy problems as file:line:col.

    A file without a top-level function gets a note, not an error: there is no tool to check.
    Exit 0 without errors (warnings and notes allowed), 1 with errors, 2 when a file cannot be read.
    """
    from runtime._check import check_source

    reports: list[dict] = []
    counts = {"error": 0, "warning": 0, "note": 0}
    for file in files:
        source = _read(file)
        if source is None:
            reports.append({"file": str(file), "unreadable": True, "diagnostics": []})
            continue
        diagnostics = check_source(source, walls=walls, tool_required=False)
        reports.append({"file": str(file), "diagnostics": [d.to_dict() for d in diagnostics]})
        for diagnostic in diagnostics:
            counts[diagnostic.level] += 1
            if not as_json:
                typer.echo(diagnostic.format(str(file)))
    unreadable = sum(1 for report in reports if report.get("unreadable"))
    checked = len(files) - unreadable
    if as_json:
        summary = {"errors": counts["error"], "warnings": counts["warning"], "notes": counts["note"]}
        typer.echo(json.dumps({"files": reports, **summary, "unreadable": unreadable}, ensure_ascii=False))
    else:
        notes = f", {counts['note']} note(s)" if counts["note"] else ""
        typer.echo(f"{counts['error']} error(s), {counts['warning']} warning(s){notes} in {checked} file(s)")
    if unreadable:
        raise typer.Exit(EXIT_UNUSABLE)
    if counts["error"]:
        raise typer.Exit(EXIT_PROBLEMS)
