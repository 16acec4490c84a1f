"""`toolpen app ...`: an exported CES application (its zip or its folder) checked, run and repacked.

Every command takes the app as the zip the console exports or as the unpacked folder. A
malformed app or archive is reported as ``error: <kind>: <file>: <member>: ...`` (exit 2).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from runtime._cli.app import app, example
from runtime._cli.app_setup import (
    EXIT_UNUSABLE,
    AgentOption,
    AppArgument,
    EndpointOptions,
    ToolOptions,
    exit_unusable,
    load_or_exit,
)
from runtime._cli.option_groups import with_option_groups
from runtime._cli.setup import JsonOption, StoreOption, WallsOption, read_json_option
from runtime._schema.formats import Format, lower
from runtime.store import DEFAULT_STORE_URL
from sandbox.common.errors import InvalidSource, ToolpenError

if TYPE_CHECKING:
    from runtime._results import ToolResult
    from runtime._runtime import Runtime
    from runtime.app._loader import AppEvaluation

app_commands = typer.Typer(
    name="app",
    help="Work on an exported CX Agent Studio app (zip or folder): check, schema, run, turn, eval, test, unpack, pack.",
    no_args_is_help=True,
    epilog=example("toolpen app check export.zip"),
)
app.add_typer(app_commands, name="app")

EvalStoreOption = Annotated[
    str, typer.Option("--store", help="Session store URL (default: in memory, nothing kept).")
]


@app_commands.command("check", epilog=example("toolpen app check samples/apps/Customer_Service"))
def check_command(app_path: AppArgument, walls: WallsOption = "all") -> None:
    """Check every tool, callback and fake of the app, and the references between its resources.

    Exit 0 when there is no error, 1 when there are errors, 2 when the app cannot be read.
    """
    from runtime.app import check_app
    from runtime.app._crosscheck import code_files

    loaded = load_or_exit(app_path)
    findings = check_app(loaded, walls=walls)
    for finding in findings:
        typer.echo(finding.format())
    errors = sum(finding.diagnostic.level == "error" for finding in findings)
    warnings = sum(finding.diagnostic.level == "warning" for finding in findings)
    files = len(dict(code_files(loaded)))
    typer.echo(f"{errors} error(s), {warnings} warning(s) in {files} Python file(s) of {loaded.name}")
    if errors:
        raise typer.Exit(1)


@app_commands.command("schema", epilog=example("toolpen app schema export.zip --format gemini"))
def schema_command(
    app_path: AppArgument,
    fmt: Annotated[Format, typer.Option("--format", help="The target API's tool format.")] = "openai",
    strict: Annotated[bool, typer.Option("--strict", help="OpenAI strict mode (openai, responses).")] = False,
) -> None:
    """Print every tool definition of the app (Python tools, then each toolset's operations) as a JSON list.

    A Python tool's description is its docstring, else its file's ``pythonFunction.description``.
    """
    from dataclasses import replace

    from runtime._openapi_toolset import OpenApiToolset
    from runtime._schema import derive_spec

    loaded = load_or_exit(app_path)
    definitions = []
    try:
        specs = []
        for tool in loaded.tools.values():
            spec = derive_spec(tool.source, tool.entry)
            specs.append(spec if spec.description else replace(spec, description=tool.description))
        for toolset in loaded.toolsets.values():
            specs += [
                op.spec for op in OpenApiToolset.from_dict(toolset.display_name, toolset.document).tools
            ]
        for spec in specs:
            lowered = lower(spec, fmt, strict=strict)
            for note in lowered.notes:
                typer.echo(f"note: {note}", err=True)
            definitions.append(lowered.schema)
    except InvalidSource as error:
        exit_unusable(error, " (run `toolpen app check`)")
    typer.echo(json.dumps(definitions, indent=2, ensure_ascii=False))


@app_commands.command(
    "run",
    epilog=example(
        'toolpen app run samples/apps/Customer_Service get_customer --args \'{"customer_id": "123"}\''
    ),
)
@with_option_groups
def run_command(
    app_path: AppArgument,
    tool: Annotated[str, typer.Argument(help="The tool: a Python tool's name, or <toolset>_<operation>.")],
    args: Annotated[str | None, typer.Option("--args", help="Arguments as a JSON object, or @file.")] = None,
    context: Annotated[
        str | None, typer.Option("--context", help="Context as JSON or @file: user_content, events, ...")
    ] = None,
    session: Annotated[
        str, typer.Option("--session", help="Session id; state persists across runs.")
    ] = "local",
    agent: AgentOption = None,
    *,
    tool_options: ToolOptions,
    store: StoreOption = DEFAULT_STORE_URL,
    as_json: JsonOption = False,
    walls: WallsOption = "all",
) -> None:
    """Run one tool of the app with its callbacks; a new session starts from the declared variables' defaults.

    Exit 0 when the tool succeeded, 1 when it failed, 2 when the app or the arguments are unusable.
    """
    from rich.console import Console

    from runtime._cli.run import exit_code, print_result, spinner
    from runtime._results import ToolResult

    loaded = load_or_exit(app_path)
    try:
        call_args = read_json_option(args, "--args")
        call_context = read_json_option(context, "--context")
        with (
            tool_options.runtime(loaded, store=store, agent=agent, walls=walls) as rt,
            spinner(f"running {tool} ..."),
        ):
            result = rt.call(tool, call_args, context=call_context, session_id=session)
    except ToolpenError as error:
        result = ToolResult(success=False, error=error)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print_result(Console(highlight=False), tool, result)
    raise typer.Exit(exit_code(result))


@app_commands.command(
    "turn",
    epilog=example("toolpen app turn work samples/turns/customer_service_turn.json --agent 'Loyalty Desk'"),
)
@with_option_groups
def turn_command(
    app_path: AppArgument,
    file: Annotated[Path, typer.Argument(help="Turn script (JSON or YAML): session, context, calls.")],
    session: Annotated[
        str | None, typer.Option("--session", help="Session id (default: the script's).")
    ] = None,
    agent: AgentOption = None,
    *,
    tool_options: ToolOptions,
    store: StoreOption = DEFAULT_STORE_URL,
    as_json: JsonOption = False,
    walls: WallsOption = "all",
) -> None:
    """Run a scripted turn against the app: before_agent callbacks, the calls in order, after_agent callbacks.

    A new session's state is the declared variables' defaults, then the script's ``context.state``.
    Several tools one model response selected (a list in ``calls``) run by the app's
    ``toolExecutionMode``; an ASYNCHRONOUS tool answers pending at once, its result after the turn.
    Exit 0 when every step succeeded, 1 when one failed, 2 when the app or the script is unusable.
    """
    from runtime._cli.turn import read_turn, report_turn
    from runtime._results import ToolResult
    from runtime._turns import play_turn

    loaded = load_or_exit(app_path)
    steps: list[tuple[str, ToolResult]] = []
    state: dict[str, Any] = {}
    try:
        script = read_turn(file)
        context = dict(script.get("context") or {})
        context["state"] = {**loaded.initial_state(), **(context.get("state") or {})}
        session_id = session or str(script.get("session") or "turn")
        with tool_options.runtime(loaded, store=store, agent=agent, walls=walls) as rt:
            steps = play_turn(rt, {**script, "context": context}, session_id)
            state = rt.store.require_session(session_id).state
    except ToolpenError as error:
        steps.append(("turn", ToolResult(success=False, error=error)))
    raise typer.Exit(report_turn(steps, state, as_json))


@app_commands.command("unpack", epilog=example("toolpen app unpack export.zip work"))
def unpack_command(
    archive: Annotated[Path, typer.Argument(help="The zip the console exported.")],
    folder: Annotated[Path, typer.Argument(help="Where to lay it out (absent or empty).")],
) -> None:
    """Lay the export out as files to edit and test (each tool's and callback's code is a .py file).

    An export that does not load is unpacked all the same (exit 0), with what stops it loading
    said, so it can be fixed in the folder.
    """
    from runtime.app import load_app, unpack
    from runtime.app._crosscheck import code_files

    try:
        unpack(archive, folder)
    except (ToolpenError, OSError) as error:
        exit_unusable(error)
    try:
        loaded = load_app(folder)
    except ToolpenError as error:
        typer.echo(f"unpacked into {folder}", err=True)
        typer.echo(
            f"warning: the app does not load yet: {error.kind}: {error.message} "
            f"(fix it in {folder}, then `toolpen app check {folder}`)",
            err=True,
        )
        return
    typer.echo(f"{loaded.name}: unpacked into {folder}")
    for path, _ in code_files(loaded):
        typer.echo(f"  {folder / path}")
    if loaded.notes:
        typer.echo(
            f"{len(loaded.notes)} warning(s) about the export: `toolpen app check {folder}` lists them"
        )


@app_commands.command("pack", epilog=example("toolpen app pack work -o import.zip"))
def pack_command(
    folder: Annotated[Path, typer.Argument(help="The app's folder (unpacked, possibly edited).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="The zip to write.")],
) -> None:
    """Write the archive the console imports: edited files changed, everything else byte for byte as exported."""
    from runtime.app import pack

    try:
        data = pack(folder)
    except (ToolpenError, OSError) as error:
        exit_unusable(error)
    output.write_bytes(data)
    typer.echo(f"wrote {output} ({len(data)} bytes)")


@app_commands.command(
    "eval", epilog=example("toolpen app eval samples/apps/Customer_Service --agent 'Loyalty Desk'")
)
@with_option_groups
def eval_command(
    app_path: AppArgument,
    names: Annotated[
        list[str] | None, typer.Argument(help="Evaluations to replay (display names; default: all).")
    ] = None,
    agent: AgentOption = None,
    *,
    tool_options: ToolOptions,
    store: EvalStoreOption = "memory://",
    as_json: JsonOption = False,
    walls: WallsOption = "all",
    model: Annotated[
        str | None,
        typer.Option("--model", help="Play the user turns against this model (see `toolpen app chat`)."),
    ] = None,
    endpoint: EndpointOptions,
) -> None:
    """Check the app's golden evaluations: without --model, replay their tool-level steps; with it, chat.

    Without ``--model`` the tool calls, tool responses and variables are replayed and what a
    model decides (replies, transfers) is skipped. With ``--model`` each golden's user turns are
    played against the model (as ``toolpen app chat``) and every expectation is checked against
    what the turn did: tool calls and their arguments, transfers, variables, replies. Each
    evaluation runs in a new session from the declared defaults. Exit 0 when no check failed, 1
    when one did, 2 when the app is unusable or names no such evaluation.
    """
    loaded = load_or_exit(app_path)
    unknown = sorted(set(names or []) - set(loaded.evaluations))
    if unknown:
        typer.echo(f"error: no evaluation named {', '.join(map(repr, unknown))} in the app", err=True)
        raise typer.Exit(EXIT_UNUSABLE)
    chosen = [loaded.evaluations[name] for name in names or sorted(loaded.evaluations)]
    runtime = partial(tool_options.runtime, loaded, store=store, agent=agent, walls=walls)
    if model is None:
        report = replay_goldens_or_exit(runtime, chosen)
    else:
        from runtime._cli.chat import eval_with_model

        try:
            client = endpoint.client()
            with runtime() as rt:
                report = eval_with_model(loaded, chosen, rt, client, model, agent)
        except ToolpenError as error:
            exit_unusable(error)
    failed = any(check["status"] == "failed" for item in report for check in item["checks"])
    if as_json:
        typer.echo(json.dumps({"success": not failed, "evaluations": report}, ensure_ascii=False))
    else:
        for item in report:
            typer.echo(item["name"])
            for check in item["checks"]:
                detail = f"  ({check['detail']})" if check["detail"] else ""
                typer.echo(f"  turn {check['turn']}  {check['what']}: {check['status']}{detail}")
        _summary(report)
    raise typer.Exit(1 if failed else 0)


def replay_goldens_or_exit(
    make_runtime: Callable[[], Runtime], chosen: list[AppEvaluation]
) -> list[dict[str, Any]]:
    """``[{"name", "checks"}]`` of each chosen evaluation replayed, or exit 2 saying why it could not be."""
    from runtime.app._golden import replay_goldens

    try:
        with make_runtime() as rt:
            replayed = replay_goldens(rt, chosen)
    except ToolpenError as error:
        exit_unusable(error)
    return [{"name": name, "checks": [check.to_dict() for check in checks]} for name, checks in replayed]


def _summary(report: list[dict[str, Any]]) -> None:
    """A table: each evaluation's passed, failed and skipped checks, then the totals."""
    statuses = ("passed", "failed", "skipped")
    rows = [
        (item["name"], *(sum(check["status"] == status for check in item["checks"]) for status in statuses))
        for item in report
    ]
    rows.append(("total", *(sum(row[index] for row in rows) for index in (1, 2, 3))))
    width = max(len(str(row[0])) for row in rows)
    typer.echo("")
    typer.echo(f"{'evaluation':<{width}}  passed  failed  skipped")
    for name, passed, failed, skipped in rows:
        typer.echo(f"{name:<{width}}  {passed:>6}  {failed:>6}  {skipped:>7}")
