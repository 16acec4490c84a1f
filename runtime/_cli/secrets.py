"""Secrets given to the command line by reference: ``@FILE`` or ``env:VAR``, never best as plain text.

Every user of the machine can read a process's arguments (``ps``, ``/proc/PID/cmdline``), so a
secret written on the command line is no longer a secret. The plain form still works, with a
warning on stderr that names the safe forms (and never the secret).
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from sandbox.common.errors import InvalidArguments

FROM_FILE = "@"
FROM_ENV = "env:"


def read_secret(given: str, *, option: str, prefix: str = "", suffix: str = "") -> str:
    """The secret ``given`` names: a file's text (``@FILE``, final newline dropped), an environment
    variable (``env:VAR``), or ``given`` itself after a warning that shows the safe forms as
    ``{option} {prefix}@FILE{suffix}``."""
    if given.startswith(FROM_FILE):
        path = given[len(FROM_FILE) :]
        try:
            value = Path(path).read_text(encoding="utf-8").rstrip("\r\n")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or "not UTF-8 text"
            raise InvalidArguments(f"{option}: cannot read the secret file {path}: {reason}") from None
        if not value:
            raise InvalidArguments(f"{option}: the secret file {path} is empty")
        return value
    if given.startswith(FROM_ENV):
        name = given[len(FROM_ENV) :]
        value = os.environ.get(name, "")
        if not value:
            raise InvalidArguments(f"{option}: the environment variable {name!r} is not set or empty")
        return value
    typer.echo(
        f"warning: a secret given to {option} is visible to every user of this machine in the process "
        f"list; give it as {option} {prefix}{FROM_FILE}FILE{suffix} or {option} {prefix}{FROM_ENV}VAR{suffix}",
        err=True,
    )
    return given
