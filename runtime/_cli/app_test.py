"""`toolpen app test APP`: the export's goldens replayed, then the pytest files it ships, one summary."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from runtime._cli.app import example
from runtime._cli.app_setup import AgentOption, AppArgument, ToolOptions, exit_unusable, load_or_exit
from runtime._cli.apps import app_commands, replay_goldens_or_exit
from runtime._cli.option_groups import with_option_groups
from runtime._cli.setup import JsonOption, WallsOption
from sandbox.common.errors import ToolpenError

if TYPE_CHECKING:
    from runtime.testing._shipped import FileReport

SHIPPED_WARNING = (
    "warning: the app's own test files run with pytest in a Python process of this machine, "
    "outside the sandbox (they are your test code; the tools they call through ces_app or "
    "tools.<name> run in it)"
)
OUTCOMES = ("passed", "failed", "skipped")


@app_commands.command("test", epilog=example("toolpen app test work --json"))
@with_option_groups
def test_command(
    app_path: AppArgument,
    agent: AgentOption = None,
    *,
    tool_options: ToolOptions,
    as_json: JsonOption = False,
    walls: WallsOption = "all",
) -> None:
    """Test the app: replay every golden evaluation (as `app eval` does), then run the pytest files it ships.

    Shipped tests (``test.py``, ``test_*.py``, ``*_test.py`` in the app, such as cxas-scrapi's
    callback tests beside a ``python_code.py``) run one file per pytest process with toolpen's
    plugin: the ``ces_app`` fixture is the app, its code imports with the CES globals, and
    ``tools.<name>`` runs that tool in the sandbox. They run host-side, unsandboxed: they are your
    own test code. Exit 0 when nothing failed, 1 when a check or a test failed, 2 when the app is
    unusable.
    """
    from runtime.app._crosscheck import code_files
    from runtime.testing._shipped import run_test_file, shipped_test_files

    loaded = load_or_exit(app_path)
    chosen = [loaded.evaluations[name] for name in sorted(loaded.evaluations)]
    runtime = partial(tool_options.runtime, loaded, store="memory://", agent=agent, walls=walls)
    goldens = replay_goldens_or_exit(runtime, chosen)
    with _app_folder(app_path) as folder:
        files = shipped_test_files(folder, {path for path, _ in code_files(loaded)})
        if files:
            typer.echo(SHIPPED_WARNING, err=True)
        tests = [run_test_file(folder, file) for file in files]
    summary = test_summary(goldens, tests)
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False))
    else:
        print_summary(summary)
    raise typer.Exit(0 if summary["success"] else 1)


@contextmanager
def _app_folder(app_path: Path) -> Iterator[Path]:
    """The app's folder: itself, or a zip unpacked into a temporary one."""
    if app_path.is_dir():
        yield app_path
        return
    from runtime.app import unpack

    with tempfile.TemporaryDirectory(prefix="toolpen-app-test-") as scratch:
        try:
            unpack(app_path, Path(scratch) / "app")
        except ToolpenError as error:
            exit_unusable(error)
        yield Path(scratch) / "app"


def _counts(statuses: list[str]) -> dict[str, int]:
    return {outcome: statuses.count(outcome) for outcome in OUTCOMES}


def test_summary(goldens: list[dict[str, Any]], tests: list[FileReport]) -> dict[str, Any]:
    """The JSON form: each golden's and each file's counts (and details), the totals, success."""
    golden_items = [
        {"name": item["name"], **_counts([c["status"] for c in item["checks"]]), "checks": item["checks"]}
        for item in goldens
    ]
    file_items = [report.to_dict() for report in tests]
    totals = {outcome: sum(item[outcome] for item in [*golden_items, *file_items]) for outcome in OUTCOMES}
    return {
        "success": totals["failed"] == 0,
        "totals": totals,
        "goldens": golden_items,
        "tests": file_items,
        "unsandboxed": bool(file_items),
    }


def _first_line(detail: str) -> str:
    return detail.strip().splitlines()[0] if detail.strip() else ""


def _line(item: dict[str, Any]) -> str:
    return ", ".join(f"{item[outcome]} {outcome}" for outcome in OUTCOMES)


def print_summary(summary: dict[str, Any]) -> None:
    """One line per golden and per shipped file, what failed below it, then the totals."""
    typer.echo(f"goldens: {len(summary['goldens']) or 'none'}")
    for item in summary["goldens"]:
        typer.echo(f"  {item['name']}: {_line(item)}")
        for check in item["checks"]:
            if check["status"] == "failed":
                typer.echo(
                    f"    turn {check['turn']}  {check['what']}: failed  ({_first_line(check['detail'])})"
                )
    typer.echo(f"shipped tests: {len(summary['tests']) or 'none'}")
    for item in summary["tests"]:
        typer.echo(f"  {item['path']}: {_line(item)}")
        if item["problem"]:
            typer.echo(f"    could not run: {item['problem']}")
        for test in item["tests"]:
            if test["status"] == "failed":
                typer.echo(f"    {test['name']}: failed  ({_first_line(test['detail'])})")
    typer.echo(f"total: {_line(summary['totals'])}")
