"""`toolpen doctor`: which walls of the process sandbox are in force on this machine; ``--probe``
runs the raw attacks of ``sandbox.process.probes`` in workers under ``walls="process"``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from runtime._cli.app import app, example

if TYPE_CHECKING:
    from sandbox.process.probes import ProbeResult


@app.command("doctor", epilog=example("toolpen doctor --probe"))
def doctor_command(
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Exit with 1 when any wall is missing.")] = False,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe", help="Run raw attacks in workers under --walls process; exit 1 if any gets through."
        ),
    ] = False,
) -> None:
    """Fork a real worker and report each wall as active or missing: the jail and its namespaces, the
    read-only root, the user, rlimits, no-new-privs, the seccomp allowlist, ..."""
    from sandbox.process.pool import WorkerPool

    with WorkerPool(size=1, allow_weak_isolation=True) as pool:  # report what is missing, not refuse
        walls = pool.probe_walls()
    walls["active"]["wall-clock deadline"] = "SIGKILL from the parent (always)"
    results = _run_probes() if probe else []
    if as_json:
        report: dict[str, object] = dict(walls)
        if probe:
            report["probes"] = [vars(result) for result in results]
        typer.echo(json.dumps(report, indent=2))
    else:
        for name, detail in walls["active"].items():
            typer.echo(f"  active   {name}: {detail}")
        for name, detail in walls["missing"].items():
            typer.echo(f"  MISSING  {name}: {detail}")
        _print_probes(results)
    if (strict and walls["missing"]) or any(not result.refused for result in results):
        raise typer.Exit(1)


def _run_probes() -> list[ProbeResult]:
    from sandbox.process.pool import WorkerPool
    from sandbox.process.probes import run_probes

    with WorkerPool(size=2, allow_weak_isolation=True) as pool:  # a sibling worker is alive during each probe
        return list(run_probes(pool))


def _print_probes(results: list[ProbeResult]) -> None:
    if results:
        typer.echo("raw attacks under --walls process:")
    for result in results:
        verdict = "refused " if result.refused else "THROUGH "
        detail = "" if result.refused else f": {result.detail}"
        typer.echo(f"  {verdict} {result.subject}: {result.name}{detail}")
