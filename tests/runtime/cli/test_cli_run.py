"""`toolpen run` through a real subprocess: readable and JSON output, exit codes, sessions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SAMPLES

LOYALTY = str(SAMPLES / "update_customer_loyalty_points.py")


def toolpen(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from runtime._cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.slow
def test_points_accumulate_in_one_sqlite_session(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    for _ in range(2):
        done = toolpen(
            "run",
            LOYALTY,
            "--args",
            '{"points_to_add": 50}',
            "--store",
            store,
            "--session",
            "s1",
            "--json",
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"success", "output", "error", "state", "state_delta", "logs"}
    assert result["success"] is True and result["error"] is None
    assert result["output"]["loyalty_points"] == 100
    assert result["state"]["customer_profile"]["loyalty_points"] == 100
    assert result["logs"] == "Updated loyalty points to: 100\n"


@pytest.mark.slow
def test_readable_output_and_default_sqlite_store(tmp_path: Path) -> None:
    done = toolpen("run", LOYALTY, "--args", '{"points_to_add": 7}', cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Updated loyalty points to: 7" in done.stdout
    assert (tmp_path / ".toolpen" / "sessions.db").exists()


def test_failing_tool_exits_1_and_keeps_state(tmp_path: Path) -> None:
    tool = tmp_path / "boom.py"
    tool.write_text(
        'def boom() -> None:\n    """Fails."""\n    context.state["x"] = 1\n    raise RuntimeError("no")\n'
    )
    done = toolpen("run", str(tool), "--json", "--store", "memory://", cwd=tmp_path)
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["error"]["kind"] == "tool_error" and result["state"] == {}


@pytest.mark.slow
def test_unusable_arguments_and_source_exit_2(tmp_path: Path) -> None:
    bad_args = toolpen("run", LOYALTY, "--args", '{"points_to_add": "many"}', "--json", cwd=tmp_path)
    assert bad_args.returncode == 2
    assert "points_to_add" in json.loads(bad_args.stdout)["error"]["message"]
    broken = tmp_path / "broken.py"
    broken.write_text("def broken(:\n")
    done = toolpen("run", str(broken), "--json", cwd=tmp_path)
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["kind"] == "invalid_source"
    missing = toolpen("run", str(tmp_path / "missing.py"), "--json", cwd=tmp_path)
    assert missing.returncode == 2


def test_context_from_a_file(tmp_path: Path) -> None:
    done = toolpen(
        "run",
        str(SAMPLES / "get_last_user_utterance.py"),
        "--context",
        f"@{SAMPLES / 'context' / 'get_last_user_utterance.json'}",
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["output"] == "Where is my order A-1001?"


def test_every_compile_time_problem_is_listed_with_line_and_column(tmp_path: Path) -> None:
    tool = tmp_path / "bad.py"
    tool.write_text(
        'import socket\n\ndef bad() -> int:\n    """Two problems."""\n    return len.__globals__\n'
    )
    done = toolpen("run", str(tool), "--store", "memory://", cwd=tmp_path)
    assert done.returncode == 2
    assert f'{tool}:1:1: error: import of module "socket" is not allowed' in done.stdout
    assert f'{tool}:5:12: error: "__globals__" is not available' in done.stdout
    as_json = json.loads(toolpen("run", str(tool), "--json", "--store", "memory://", cwd=tmp_path).stdout)
    assert [(p["line"], p["col"]) for p in as_json["problems"]] == [(1, 1), (5, 12)]
