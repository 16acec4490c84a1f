"""The `toolpen` command. Each command module registers its commands on `app` when loaded.

``main`` loads only the modules of the command it is given (``COMMANDS``), all of them for
``toolpen --help`` or a name it does not know, and none for ``toolpen --version``, which answers
from `app.py` alone: a command pays for no other command's imports.
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

COMMANDS: dict[str, tuple[str, ...]] = {
    "app": ("apps", "app_test", "chat"),
    "check": ("schema",),
    "doctor": ("doctor",),
    "mcp": ("mcp",),
    "run": ("run",),
    "schema": ("schema",),
    "serve": ("serve",),
    "session": ("session",),
    "store": ("store",),
    "turn": ("turn",),
    "web": ("web",),
}
"""Each top-level command (or group) of `toolpen`, and the modules that register it and its subcommands."""


def load_commands(modules: tuple[str, ...] = COMMAND_MODULES) -> typer.Typer:
    """The `toolpen` application with the commands of ``modules`` registered (default: every one)."""
    for name in modules:
        importlib.import_module(f"runtime._cli.{name}")
    return app


def main() -> None:
    """Console-script entry point."""
    given = sys.argv[1:]
    if given != ["--version"]:
        load_commands(COMMANDS.get(given[0], COMMAND_MODULES) if given else COMMAND_MODULES)
    app()
