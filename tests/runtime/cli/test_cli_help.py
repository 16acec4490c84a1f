"""The CLI's own surface: every command's --help ends with an example; check --json and its notes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from runtime._cli import COMMAND_MODULES, COMMANDS, load_commands
from tests.conftest import SAMPLES


def toolpen(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from runtime._cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


def command_paths() -> list[list[str]]:
    """Every command and group of `toolpen`, as the argument lists that name them."""
    paths: list[list[str]] = [[]]

    def walk(group: Any, prefix: list[str]) -> None:  # typer's own click Group
        for name, command in group.commands.items():
            paths.append([*prefix, name])
            if hasattr(command, "commands"):
                walk(command, [*prefix, name])

    walk(typer.main.get_command(load_commands()), [])
    return paths


@pytest.mark.parametrize("path", command_paths(), ids=lambda path: " ".join(path) or "toolpen")
def test_every_help_ends_with_an_example(path: list[str]) -> None:
    done = toolpen(*path, "--help")
    assert done.returncode == 0, done.stderr
    lines = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    tail = " ".join(lines[-3:])
    assert "Example: toolpen " in tail, done.stdout


def test_every_command_is_covered() -> None:
    names = {" ".join(path) for path in command_paths()}
    assert {"run", "schema", "check", "turn", "session", "session show", "doctor", "mcp", "serve"} <= names


def _modules_of(typer_app: typer.Typer) -> set[str]:
    """The modules whose functions are ``typer_app``'s commands, its groups' included."""
    modules = {command.callback.__module__ for command in typer_app.registered_commands if command.callback}
    for group in typer_app.registered_groups:
        if group.typer_instance:
            modules |= _modules_of(group.typer_instance)
    return modules


def test_each_command_names_the_modules_that_register_it() -> None:
    # `main` loads only COMMANDS[argv[1]]: a module left out there would be a command missing
    app = load_commands()
    registered = {command.name: {command.callback.__module__} for command in app.registered_commands}
    registered |= {group.name: _modules_of(group.typer_instance) for group in app.registered_groups}
    assert registered == {
        name: {f"runtime._cli.{module}" for module in modules} for name, modules in COMMANDS.items()
    }
    assert {module for modules in COMMANDS.values() for module in modules} == set(COMMAND_MODULES)


def test_a_command_loads_only_its_modules() -> None:
    code = (
        "import sys\nfrom runtime._cli import COMMAND_MODULES, main\n"
        "sys.argv[1:] = ['check', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print([name for name in COMMAND_MODULES if f'runtime._cli.{name}' in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "['schema']", done.stderr


def test_check_json_reports_each_file(tmp_path: Path) -> None:
    helper = tmp_path / "helpers.py"
    helper.write_text("RATE = 1.2\n")
    done = toolpen("check", str(helper), str(SAMPLES / "get_random_fact.py"), "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert (report["errors"], report["warnings"], report["notes"], report["unreadable"]) == (2, 0, 1, 0)
    first, second = report["files"]
    assert first["file"] == str(helper)
    assert [d["level"] for d in first["diagnostics"]] == ["note"]
    assert first["diagnostics"][0]["message"].startswith("no tool here")
    assert {d["message"] for d in second["diagnostics"]} == {
        "undefined name 'request_body'",
        "undefined name 'headers'",
    }


def test_a_file_without_a_tool_is_a_note_and_exit_0(tmp_path: Path) -> None:
    helper = tmp_path / "helpers.py"
    helper.write_text("import math\nRATE = math.pi\nundefined_thing\n")
    done = toolpen("check", str(helper))
    assert done.returncode == 1  # the undefined name is still an error: the code is checked
    assert f"{helper}:1:1: note: no tool here" in done.stdout
    helper.write_text("RATE = 1.2\n")
    done = toolpen("check", str(helper))
    assert done.returncode == 0
    assert done.stdout.endswith("0 error(s), 0 warning(s), 1 note(s) in 1 file(s)\n")


def test_an_unreadable_file_is_exit_2_in_json_too(tmp_path: Path) -> None:
    done = toolpen("check", str(tmp_path / "missing.py"), "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["unreadable"] == 1
