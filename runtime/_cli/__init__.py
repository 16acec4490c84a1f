"""The `toolpen` command. Each command module registers its commands on `app` when loaded.

``main`` loads them all, except for ``toolpen --version``, which answers from `app.py` alone.
"""

from __future__ import annotations

import importlib
import sys

import typer

from runtime._cli.app import app

COMMAND_MODULES = (
    "apps",
    "app_test",
    "chat",
    "doctor",
    "mcp",
    "run",
    "schema",
    "serve",
    "session",
    "store",
    "turn",
    "web",
)
"""One module per command or command group, in `runtime/_cli/`."""


def load_commands() -> typer.Typer:
    """The `toolpen` application with every command registered."""
    for name in COMMAND_MODULES:
        importlib.import_module(f"runtime._cli.{name}")
    return app


def main() -> None:
    """Console-script entry point."""
    if sys.argv[1:] != ["--version"]:
        load_commands()
    app()
