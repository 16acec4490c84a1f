"""`toolpen turn`: a scripted agent turn (the calls a model would make) with callbacks and fakes.

A turn file (JSON or YAML) names the session, the context, what the runtime registers (paths
relative to the file) and the calls in order::

    {"session": "s1", "context": {...}, "tools": ["../t.py"], "openapi": {"crm": "../crm.yaml"},
     "callbacks": ["../guard.py"], "fakes": ["../fake.py"],
     "calls": [{"tool": "t", "args": {...}}, [{"tool": "a"}, {"tool": "b"}]],
     "tool_execution_mode": "PARALLEL"}

An item of ``calls`` that is a list is one model response that selected several tools: they run
by the tool execution mode (``PARALLEL`` or ``SEQUENTIAL``: the script's, else ``toolpen app
turn`` takes the app's, ``PARALLEL`` unless it says otherwise, and ``toolpen turn`` runs them
``SEQUENTIAL``). An ``ASYNCHRONOUS`` tool answers ``{"status": "pending"}`` at once and its
result is reported after the turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from runtime.cli.app import app, example
from runtime.cli.run import exit_code, print_result
from runtime.cli.setup import (
    ExtraOptions,
    Extras,
    JsonOption,
    StoreOption,
    WallsOption,
    WeakIsolationOption,
    build_runtime,
    read_source,
    with_extra_options,
)
from runtime.execution import ToolCall, parse_tool_execution_mode
from runtime.store import DEFAULT_STORE_URL
from sandbox.common.errors import InvalidArguments, ToolpenError

if TYPE_CHECKING:
    from runtime.results import ToolResult
    from runtime.runtime import Runtime


def read_turn(path: Path) -> dict[str, Any]:
    return parse_turn(read_source(path), str(path))


def parse_turn(text: str, where: str) -> dict[str, Any]:
    """A turn script from its JSON or YAML text; ``InvalidArguments`` says what ``where`` lacks."""
    import yaml

    try:
        script = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InvalidArguments(f"{where} is not valid JSON or YAML: {error}") from None
    if not isinstance(script, dict) or not isinstance(script.get("calls"), list):
        raise InvalidArguments(f'{where} must be an object with a "calls" list')
    return script


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


def play_turn(
    rt: Runtime, script: dict[str, Any], session: str, mode: str | None = None
) -> list[tuple[str, ToolResult]]:
    """Run the turn: before_agent callbacks, the calls, after_agent callbacks, then the results of
    asynchronous tools (``<tool> (result)``; their immediate answer is ``<tool> (started)``).

    An item of ``calls`` that is a list is one model response selecting several tools, run by
    ``mode``, else the script's ``tool_execution_mode``, else the runtime's (an app's own)."""
    from runtime.turns import run_tool_calls

    context = dict(script.get("context") or {})
    rt.store.get_or_create_session(rt.app_name, rt.user_id, session, context.pop("state", None))
    chosen = parse_tool_execution_mode(mode or script.get("tool_execution_mode") or rt.tool_execution_mode)
    steps: list[tuple[str, ToolResult]] = []
    if rt.hooks.get("before_agent"):
        before = rt.run_callbacks("before_agent", session_id=session, context=context)
        steps.append(("before_agent_callback", before))
        if not before.success or before.output is not None:
            return steps
    started = []
    for item in script["calls"]:
        selected = [_tool_call(call) for call in (item if isinstance(item, list) else [item])]
        for turn_call in run_tool_calls(rt, selected, mode=chosen, context=context, session_id=session):
            if turn_call.later is None:
                steps.append((turn_call.call.tool, turn_call.result))
            else:
                steps.append((f"{turn_call.call.tool} (started)", turn_call.result))
                started.append(turn_call)
    if rt.hooks.get("after_agent"):
        steps.append(
            ("after_agent_callback", rt.run_callbacks("after_agent", session_id=session, context=context))
        )
    steps.extend((f"{item.call.tool} (result)", item.later.result()) for item in started if item.later)
    return steps


def _tool_call(call: Any) -> ToolCall:
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        raise InvalidArguments(f'a turn\'s call is {{"tool": NAME, "args": {{...}}}}, not {str(call)[:80]}')
    return ToolCall(call["tool"], dict(call.get("args") or {}))


@app.command("turn", epilog=example("toolpen turn samples/turns/refund_turn.json --session demo"))
@with_extra_options
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
    from runtime.results import ToolResult

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
