"""The typer application that every `toolpen` command registers on."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from runtime._extras import require_extra
from sandbox.common.errors import MissingExtra

app = typer.Typer(
    name="toolpen",
    help="Run inline Python tools for LLM agents: schemas from source, a sandbox, sessions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    epilog='Example: toolpen run samples/get_customer.py --args \'{"customer_id": "c-1"}\'',
)


def example(command: str) -> str:
    """A command's help epilog: one example to copy (escaped for rich markup)."""
    text = f"Example: {command}"
    if "[" not in text and not text.endswith("\\"):  # nothing rich would escape: spare loading rich
        return text
    from rich.markup import escape

    return escape(text)


def _print_version(given: bool) -> None:
    if given:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"toolpen {version('toolpen')}")
        except PackageNotFoundError:  # run from a source tree that was never installed
            typer.echo("toolpen (not installed: run from a source tree)")
        raise typer.Exit()


@app.callback()
def _options(
    show_version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", callback=_print_version, is_eager=True),
    ] = False,
) -> None:
    """Run inline Python tools for LLM agents: schemas from source, a sandbox, sessions."""


def exit_missing_extra(error: MissingExtra) -> NoReturn:
    """Print the one line that names the missing extra and exit with 2."""
    typer.echo(error.message, err=True)
    raise typer.Exit(2)


def need_extra(extra: str, feature: str) -> None:
    """Exit with the one-line message (status 2) unless ``extra`` is installed."""
    try:
        require_extra(extra, feature)
    except MissingExtra as error:
        exit_missing_extra(error)
