"""The `toolpen` command. Each module below registers its commands on `app`."""

from __future__ import annotations

# Command modules register themselves on import (one module per command group).
from runtime.cli import apps as _apps  # noqa: F401
from runtime.cli import doctor as _doctor  # noqa: F401
from runtime.cli import mcp as _mcp  # noqa: F401
from runtime.cli import run as _run  # noqa: F401
from runtime.cli import schema as _schema  # noqa: F401
from runtime.cli import serve as _serve  # noqa: F401
from runtime.cli import store as _store  # noqa: F401
from runtime.cli import turn as _turn  # noqa: F401
from runtime.cli import web as _web  # noqa: F401
from runtime.cli.app import app
from runtime.cli.session import session_app  # noqa: F401


def main() -> None:
    """Console-script entry point."""
    app()
