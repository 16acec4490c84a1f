"""The `toolpen` command. Each module below registers its commands on `app`."""

from __future__ import annotations

from runtime.cli.app import app

# Command modules register themselves on import (one module per command group).
from runtime.cli.session import session_app  # noqa: F401


def main() -> None:
    """Console-script entry point."""
    app()
