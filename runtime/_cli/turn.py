"""`toolpen turn`: a scripted agent turn (the calls a model would make) with callbacks and fakes.

The turn-script format and how a script is played are the engine's (``runtime/_turns.py``); this
command registers what a script names (paths relative to the script, with the command's own
options) and reports the steps. ``toolpen turn`` runs a response's calls ``SEQUENTIAL`` unless
the script says otherwise; ``toolpen app turn`` (``runtime/_cli/apps.py``) takes the app's mode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from runtime._cli.app import app, example
from runtime._cli.option_groups import with_option_groups
from runtime._cli.run import exit_code, print_result
from runtime._cli.setup import (
    ExtraOptions,
    Extras,
    JsonOption,
    StoreOption,
    WallsOption,
    WeakIsolationOption,
    build_runtime,
    read_source,
)
from runtime.store import DEFAULT_STORE_URL
from sandbox.common.errors import ToolpenError

if TYPE_CHECKING:
    from runtime._results import ToolResult


def read_turn(path: Path) -> dict[str, Any]:
    from runtime._turns import parse_turn

    return parse_turn(read_source(path), str(path))


def _script_extras(script: dict[str, Any], base: Path) -> Extras:
    def paths(key: str) -> list[Path]:
        return [base / item for item in script.get(key) or []]

    openapi = {name: str(base / spec) for name, spec in (script.get("openapi") or {}).items()}
    return Extras(tools=paths("tools"), openapi=openapi, callbacks=paths("callbacks"), fakes=paths("fakes"))


def _merged(first: Extras, second: Extras) -> Extras:
    return Extras(
        tools=first.tools + second.tools,
        openapi={**first.openapi, **second.openapi},
        auth={**first.auth, **second.auth},
        allow_hosts=first.allow_hosts + second.allow_hosts,
        callbacks=first.callbacks + second.callbacks,
        fakes=first.fakes + second.fakes,
    )


@app.command("turn", epilog=example("toolpen turn samples/turns/refund_turn.json --session demo"))
@with_option_groups
def run_turn(
    file: Annotated[Path, typer.Argument(help="Turn script (JSON or YAML): session, context, calls, ...")],
    store: StoreOption = DEFAULT_STORE_URL,
    session: Annotated[
        str | None, typer.Option("--session", help="Session id (default: the script's).")
    ] = None,
    as_json: JsonOption = False,
    walls: WallsOption = "all",
    allow_weak_isolation: WeakIsolationOption = False,
    *,
    options: ExtraOptions,
) -> None:
    """Run a scripted agent turn in one session and show each call, its callbacks and the state after.

    Exit 0 when every call succeeded, 1 when one failed, 2 when the script or a source is unusable.
    """
    from runtime._results import ToolResult
    from runtime._turns import play_turn

    steps: list[tuple[str, ToolResult]] = []
    state: dict[str, Any] = {}
    try:
        script = read_turn(file)
        extras = _merged(
            _script_extras(script, file.parent),
            options.extras(),
        )
        session_id = session or str(script.get("session") or "turn")
        with build_runtime(store, extras, walls, allow_weak_isolation) as rt:
            steps = play_turn(rt, script, session_id)
            state = rt.store.require_session(session_id).state
    except ToolpenError as error:
        steps.append(("turn", ToolResult(success=False, error=error)))
    raise typer.Exit(report_turn(steps, state, as_json))


def report_turn(steps: list[tuple[str, ToolResult]], state: dict[str, Any], as_json: bool) -> int:
    """Print each step and the state after the turn; the exit code (the worst step's)."""
    code = max((exit_code(result) for _, result in steps), default=0)
    if as_json:
        calls = [{"name": name, **result.to_dict(), "state": None} for name, result in steps]
        typer.echo(json.dumps({"success": code == 0, "calls": calls, "state": state}, ensure_ascii=False))
    else:
        console = Console(highlight=False)
        for name, result in steps:
            print_result(console, name, result)
            console.print()
        console.print("[bold]session state after the turn[/bold]")
        console.print_json(json.dumps(state, ensure_ascii=False))
    return code
