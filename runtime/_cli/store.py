"""`toolpen store migrate URL`: bring a store's schema to this toolpen's version, explicitly."""

from __future__ import annotations

from typing import Annotated

import typer

from runtime._cli.app import app, example
from runtime._cli.secrets import read_secret
from runtime.store import display_url, open_store
from sandbox.common.errors import ToolpenError

store_app = typer.Typer(
    name="store",
    help="Manage a session store's schema.",
    no_args_is_help=True,
    epilog=example("toolpen store migrate sqlite:///.toolpen/sessions.db"),
)
app.add_typer(store_app, name="store")


@store_app.command("migrate", epilog=example("toolpen store migrate env:TOOLPEN_STORE_URL"))
def migrate_command(
    url: Annotated[str, typer.Argument(help="Store URL, or env:VAR / @FILE holding it (a password).")],
) -> None:
    """Create the store's schema, or upgrade an older one to this toolpen's version (in one
    transaction); refuses a newer one. Replicas refuse to open a store of another version."""
    try:
        if url.startswith(("env:", "@")):
            url = read_secret(url, option="URL")
        with open_store(url, migrate=True) as store:
            done = store.schema.describe() if store.schema else "nothing to migrate (kept in memory)"
    except ToolpenError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"{display_url(url)}: {done}")
