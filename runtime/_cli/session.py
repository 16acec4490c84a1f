"""`toolpen session list|show|delete`: what a session store holds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from runtime._cli.app import app, example, exit_missing_extra
from runtime.store import DEFAULT_STORE_URL, display_url, open_store
from sandbox.common.errors import InvalidArguments, MissingExtra, ToolpenError

if TYPE_CHECKING:
    from runtime.store import Store

session_app = typer.Typer(
    name="session",
    help="List, show, delete and prune stored sessions.",
    no_args_is_help=True,
    epilog=example("toolpen session show local"),
)
app.add_typer(session_app, name="session")

StoreOption = Annotated[
    str,
    typer.Option(
        "--store",
        help="Store URL: memory://, sqlite:///relative.db, sqlite:////absolute.db, postgresql://..., redis://...",
    ),
]


@contextmanager
def _opened(url: str) -> Iterator[Store]:
    """The store, closed afterwards; a ToolpenError becomes a message and exit status 1."""
    try:
        with open_store(url) as store:
            yield store
    except MissingExtra as error:
        exit_missing_extra(error)
    except ToolpenError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(1) from None


@session_app.command("list", epilog=example("toolpen session list --store sqlite:///.toolpen/sessions.db"))
def list_sessions(
    store_url: StoreOption = DEFAULT_STORE_URL,
    app_name: Annotated[str | None, typer.Option("--app", help="Only this app's sessions.")] = None,
    user_id: Annotated[str | None, typer.Option("--user", help="Only this user's sessions.")] = None,
) -> None:
    """List sessions, most recently updated first, and the store's size."""
    with _opened(store_url) as store:
        summaries = store.list_sessions(app_name=app_name, user_id=user_id)
        size = store.size()
    footer = f"store size: {_human(size.bytes)} ({size.measured})"
    if not summaries:
        typer.echo(f"no sessions in {display_url(store_url)}; {footer}")  # never the password
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("id", "app", "user", "events", "last update")
    for summary in summaries:
        updated = datetime.fromtimestamp(summary.last_update_time).isoformat(sep=" ", timespec="seconds")
        table.add_row(summary.id, summary.app_name, summary.user_id, str(summary.event_count), updated)
    Console(width=200).print(table)
    typer.echo(f"{len(summaries)} session(s); {footer}")


def _exit_unusable(error: InvalidArguments) -> NoReturn:
    """Unusable arguments: the message, exit 2 (a store's own failure is 1: ``_opened``)."""
    typer.echo(f"error: {error.message}", err=True)
    raise typer.Exit(2) from None


def _human(size: int) -> str:
    """``1536`` -> ``1.5 kB`` (powers of 1024)."""
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    for unit in ("kB", "MB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


@session_app.command("show", epilog=example("toolpen session show local"))
def show_session(session_id: str, store_url: StoreOption = DEFAULT_STORE_URL) -> None:
    """Print a session (state and events) as JSON."""
    with _opened(store_url) as store:
        session = store.require_session(session_id)
    typer.echo(json.dumps(session.to_dict(), indent=2, ensure_ascii=False))


@session_app.command("delete", epilog=example("toolpen session delete dinner"))
def delete_session(session_id: str, store_url: StoreOption = DEFAULT_STORE_URL) -> None:
    """Delete a session with its events and call records (app and user state stay)."""
    with _opened(store_url) as store:
        if not store.delete_session(session_id):
            typer.echo(f"error: session {session_id!r} not found in {display_url(store_url)}", err=True)
            raise typer.Exit(1)
    typer.echo(f"deleted session {session_id}")


@session_app.command(
    "prune", epilog=example("toolpen session prune --idle 30d --store sqlite:///.toolpen/sessions.db")
)
def prune_sessions(
    store_url: StoreOption = DEFAULT_STORE_URL,
    idle: Annotated[
        str | None,
        typer.Option(
            "--idle",
            help="Delete sessions not updated for this long (90s, 15m, 12h, 30d); default: the store URL's ?idle_timeout=.",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would be deleted; delete nothing.")
    ] = False,
) -> None:
    """Delete the sessions idle for longer than --idle (their state, events and call records; app and user state stay)."""
    from runtime.store._retention import parse_duration

    try:
        seconds = parse_duration(idle, "--idle") if idle is not None else None
    except InvalidArguments as error:
        _exit_unusable(error)
    with _opened(store_url) as store:
        try:
            pruned = store.prune(seconds, dry_run=dry_run)
        except InvalidArguments as error:  # no idle time given, nor in the store's URL
            _exit_unusable(error)
    verb = "would delete" if dry_run else "deleted"
    typer.echo(f"{verb} {len(pruned)} idle session(s) in {display_url(store_url)}")
    for session_id in pruned:
        typer.echo(f"  {session_id}")
