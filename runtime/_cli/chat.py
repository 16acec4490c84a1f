"""`toolpen app chat`: talk to an exported app's agents, running on a model of an OpenAI-compatible
endpoint; and the model side of `toolpen app eval --model`.

The endpoint is ``--base-url`` (else ``OPENAI_BASE_URL``, else OpenAI's); the key ``--api-key
@FILE|env:VAR`` (else ``OPENAI_API_KEY``), never printed. User lines come from stdin (a
terminal or a pipe); each turn prints the agent, each tool call with its arguments, result and
state delta, transfers and the reply; ``--json`` prints one JSON object per line instead: every
event (requests and responses included) and each turn's end.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from runtime._cli.app import example
from runtime._cli.app_setup import (
    AppArgument,
    EndpointOptions,
    ModelOption,
    ToolOptions,
    exit_unusable,
    load_or_exit,
)
from runtime._cli.apps import app_commands
from runtime._cli.option_groups import with_option_groups
from runtime._cli.setup import WallsOption
from sandbox.common.errors import ToolpenError

if TYPE_CHECKING:
    from runtime._runtime import Runtime
    from runtime.app import App
    from runtime.app._chat import AppChat, ChatEvent, ChatTurn


def new_chat(rt: Runtime, loaded: App, client: Any, model: str, agent: str | None, session: str) -> AppChat:
    from runtime.app._chat import AppChat

    return AppChat(rt, loaded, client, model, agent=agent, session_id=session)


@app_commands.command(
    "chat",
    epilog=example(
        "toolpen app chat samples/apps/Customer_Service --model qwen/qwen3-next-80b-a3b-instruct-maas "
        "--fakes < questions.txt"
    ),
)
@with_option_groups
def chat_command(
    app_path: AppArgument,
    model: ModelOption,
    *,
    endpoint: EndpointOptions,
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="The agent to start with (display name; default: the root agent)."),
    ] = None,
    session: Annotated[
        str, typer.Option("--session", help="Session id of the conversation's state.")
    ] = "chat",
    tool_options: ToolOptions,
    store: Annotated[str, typer.Option("--store", help="Session store URL.")] = "memory://",
    as_json: Annotated[
        bool,
        typer.Option("--json", help="One JSON object per line: every event, requests and responses too."),
    ] = False,
    walls: WallsOption = "all",
) -> None:
    """Chat with the app's agents on a model: one user turn per line of stdin, until its end or end_session.

    Exit 0 when every turn went through, 1 when one failed (the model endpoint, a callback), 2
    when the app or the options are unusable.
    """
    loaded = load_or_exit(app_path)
    failed = False
    try:
        client = endpoint.client()
        with tool_options.runtime(loaded, store=store, agent=agent, walls=walls) as rt:
            chat = new_chat(rt, loaded, client, model, agent, session)
            shown: set[str] = set()
            _prompt(as_json, chat.agent)
            for line in sys.stdin:
                if not line.strip():
                    continue
                turn = chat.turn(line.strip())
                failed = failed or not turn.success
                _show(turn, as_json, shown)
                if turn.ended:
                    break
                _prompt(as_json, turn.agent)
    except ToolpenError as error:
        exit_unusable(error)
    except KeyboardInterrupt:  # Ctrl-C at the prompt or during a turn: the runtime was closed
        typer.echo("", err=True)
        raise typer.Exit(130) from None
    raise typer.Exit(1 if failed else 0)


def _prompt(as_json: bool, agent: str) -> None:
    if not as_json and sys.stdin.isatty():
        typer.echo(f"you ({agent} listens)> ", nl=False)


def _show(turn: ChatTurn, as_json: bool, shown: set[str]) -> None:
    """Print a turn: its events as JSON lines, or the compact view (each note once: ``shown``)."""
    if as_json:
        for event in turn.events:
            typer.echo(json.dumps(event.to_dict(), ensure_ascii=False, default=str))
        end = {k: v for k, v in turn.to_dict().items() if k != "events"}
        typer.echo(json.dumps({"kind": "turn", **end}, ensure_ascii=False, default=str))
        return
    if not sys.stdin.isatty():  # piped: the user's line is not on the screen yet
        typer.echo(f"you: {turn.user}")
    for event in turn.events:
        line = describe(event)
        if line and line not in shown:
            typer.echo(line)
        if event.kind == "note" and line:
            shown.add(line)
    if turn.error is not None:
        typer.echo(
            f"error: {turn.error.kind}: {turn.error.message} (the conversation is as before this turn)"
        )
    if turn.ended:
        typer.echo("(the conversation has ended)")


def _compact(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


SHOWN_APART = ("transfer_to_agent", "end_session")
"""System tools whose successful call has a line of its own (the transfer, the end)."""


def describe(event: ChatEvent) -> str | None:
    """One readable line for an event of the compact view (None: not shown there)."""
    data = event.data
    if event.kind == "tool_result":
        outcome = (
            f"-> {_compact(data['output'])}" if data["success"] else f"-> error {_compact(data['error'])}"
        )
        return f"  [{event.agent}] {data['tool']} finished {outcome}"
    if event.kind == "tool_call" and not (data["success"] and data["tool"] in SHOWN_APART):
        outcome = (
            f"-> {_compact(data['output'])}" if data["success"] else f"-> error {_compact(data['error'])}"
        )
        delta = data.get("state_delta") or {}
        changed = f"  state {_compact(delta)}" if delta.get("set") or delta.get("deleted") else ""
        return f"  [{event.agent}] {data['tool']}({_compact(data['args'])}) {outcome}{changed}"
    if event.kind == "callback" and (data.get("output") is not None or _changed(data)):
        answered = f" answered {_compact(data['output'])}" if data.get("output") is not None else ""
        changed = f"  state {_compact(data['state_delta'])}" if _changed(data) else ""
        return f"  [{event.agent}] {data['callback']} callback{answered}{changed}"
    if event.kind == "transfer":
        return f"  -> transfer: {data['from']} -> {data['to']}"
    if event.kind == "guardrail":
        return f"  [{event.agent}] guardrail triggered: {data['reason']}"
    if event.kind == "reply":
        return f"{event.agent}: {data['text']}"
    if event.kind == "end_session":
        return f"  [{event.agent}] end_session {_compact(data['args'])}"
    if event.kind == "note":
        return f"  note: {data['text']}"
    return None


def _changed(data: dict[str, Any]) -> bool:
    delta = data.get("state_delta") or {}
    return bool(delta.get("set") or delta.get("deleted"))


def eval_with_model(
    loaded: App, chosen: list[Any], rt: Runtime, client: Any, model: str, agent: str | None
) -> list[dict[str, Any]]:
    """Each chosen golden played against the model in a new session: its checks as dicts."""
    from runtime.app._golden_model import play_golden

    report = []
    for number, evaluation in enumerate(chosen, 1):
        chat = new_chat(rt, loaded, client, model, agent, f"evaluation-{number}")
        checks = play_golden(chat, evaluation)
        report.append({"name": evaluation.display_name, "checks": [check.to_dict() for check in checks]})
    return report
