"""The typer application that every `toolpen` command registers on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="toolpen",
    help="Run inline Python tools for LLM agents: schemas from source, a sandbox, sessions.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
