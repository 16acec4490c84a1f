"""`toolpen run`: run one tool from a file, in a session that persists between runs."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from runtime._cli.app import app, example
from runtime._cli.option_groups import with_option_groups
from runtime._cli.setup import (
    UNUSABLE,
    ExtraOptions,
    JsonOption,
    StoreOption,
    WallsOption,
    WeakIsolationOption,
    build_runtime,
    read_json_option,
    read_source,
)
from runtime.store import DEFAULT_STORE_URL
from sandbox.common.errors import InvalidSource, PolicyViolation, ToolpenError

if TYPE_CHECKING:
    from runtime._results import ToolResult
    from sandbox.common.diagnostics import Diagnostic


def spinner(text: str) -> AbstractContextManager[object]:
    """A spinner on stderr while a call runs; none where stderr is no terminal, since rich draws
    nothing there (and need not load its live display)."""
    console = Console(stderr=True)
    return console.status(text, spinner="dots") if console.is_terminal else nullcontext()


def print_result(console: Console, name: str, result: ToolResult) -> None:
    """A readable account of one call: status, output, logs, state delta."""
    if result.success:
        notes = " [dim](stored result, not run again)[/dim]" if result.replayed else ""
        notes += " [yellow](faked)[/yellow]" if result.faked else ""
        notes += f" [magenta](output from {result.replaced_by})[/magenta]" if result.replaced_by else ""
        if result.dropped_arguments:
            dropped = ", ".join(result.dropped_arguments)
            notes += f" [yellow](not declared by the tool, not passed: {escape(dropped)})[/yellow]"
        console.print(f"[green]ok[/green] {name}{notes}")
        console.print_json(json.dumps(result.output, ensure_ascii=False))
    else:
        error = result.error
        kind = error.kind if error else "error"
        message = error.message if error else ""
        line = error.line if error else None
        where = f" (line {line})" if line and f"line {line}" not in message else ""
        console.print(f"[red]failed[/red] {escape(name)}: {kind}{where}: {escape(message)}")
    if result.logs:
        console.print("[bold]logs[/bold]")
        console.print(result.logs.rstrip("\n"), markup=False, highlight=False)
    if result.state_delta.get("set") or result.state_delta.get("deleted"):
        console.print("[bold]state delta[/bold]")
        console.print_json(json.dumps(result.state_delta, ensure_ascii=False))


def exit_code(result: ToolResult) -> int:
    """0 when the call succeeded, 2 when the source or arguments are unusable, else 1."""
    if result.success:
        return 0
    return 2 if result.error and result.error.kind in UNUSABLE else 1


@app.command(
    "run",
    epilog=example(
        "toolpen run samples/update_customer_loyalty_points.py --args '{\"points_to_add\": 50}' --context @samples/context/update_customer_loyalty_points.json"
    ),
)
@with_option_groups
def run_tool(
    file: Annotated[Path, typer.Argument(help="Python file with the tool's source.")],
    name: Annotated[str | None, typer.Option("--name", help="Entry function (default: the first).")] = None,
    args: Annotated[str | None, typer.Option("--args", help="Arguments as a JSON object, or @file.")] = None,
    context: Annotated[
        str | None,
        typer.Option(
            "--context",
            help="Context as JSON or @file: user_content, state (applied over the stored state), events, "
            "session_id, invocation_id, ...",
        ),
    ] = None,
    store: StoreOption = DEFAULT_STORE_URL,
    session: Annotated[
        str | None,
        typer.Option(
            "--session", help="Session id; state persists across runs. [default: the context's, or local]"
        ),
    ] = None,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Delete the session first and start it anew (from --context).")
    ] = False,
    as_json: JsonOption = False,
    walls: WallsOption = "all",
    allow_weak_isolation: WeakIsolationOption = False,
    *,
    options: ExtraOptions,
) -> None:
    """Run a tool once and print its result, logs and state change.

    Nothing given is ignored: the state in --context is applied over the session's stored state (and
    recorded as a state change); its events seed a new session, or must begin the stored history
    (else the run is refused: --fresh starts the session anew); its session_id names the session.

    Exit 0 when the tool succeeded, 1 when it failed, 2 when the source or the arguments are unusable
    (then every problem the checker sees is listed as file:line:col, as `toolpen check` does).
    """
    from runtime._given_context import call_context, prepare_session, session_for
    from runtime._results import ToolResult
    from runtime.store import display_url

    problems: list[Diagnostic] = []
    try:
        source = read_source(file)
        extras = options.extras()
        call_args = read_json_option(args, "--args")
        given = read_json_option(context, "--context")
        session_id = session_for(session, given)
        with build_runtime(store, extras, walls, allow_weak_isolation) as rt:
            try:
                tool = rt.add_tool(source, name, replace=True)
            except (InvalidSource, PolicyViolation):
                from runtime._check import check_source

                problems = [d for d in check_source(source) if d.level == "error"]
                raise
            typer.echo(f"session {session_id!r} in {display_url(store)}", err=True)
            prepare_session(rt, session_id, given, fresh=fresh)
            with spinner(f"running {tool.name} ..."):
                result = rt.call(tool.name, call_args, context=call_context(given), session_id=session_id)
    except ToolpenError as error:
        result = ToolResult(success=False, error=error)
    if as_json:
        report = result.to_dict()
        if problems:
            report["problems"] = [problem.to_dict() for problem in problems]
        typer.echo(json.dumps(report, ensure_ascii=False))
    else:
        if options.fakes:
            typer.echo("note: fakes are enabled; faked results are marked", err=True)
        print_result(Console(highlight=False), name or file.stem, result)
        for problem in problems:
            typer.echo(problem.format(str(file)))
    raise typer.Exit(exit_code(result))
