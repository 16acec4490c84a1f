"""`toolpen doctor`: which walls of the process sandbox are in force on this machine."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from runtime.cli.app import app
from runtime.pool import WorkerPool


@app.command("doctor")
def doctor_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit with 1 when any wall is missing.")] = False,
) -> None:
    """Fork a real worker and report the walls it has: rlimits, seccomp, network namespace, ..."""
    with WorkerPool(size=1) as pool:
        walls = pool.probe_walls()
    walls["active"]["wall-clock deadline"] = "SIGKILL from the parent (always)"
    if as_json:
        typer.echo(json.dumps(walls, indent=2))
    else:
        for name, detail in walls["active"].items():
            typer.echo(f"  active   {name}: {detail}")
        for name, detail in walls["missing"].items():
            typer.echo(f"  MISSING  {name}: {detail}")
    if strict and walls["missing"]:
        raise typer.Exit(1)
