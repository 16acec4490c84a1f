"""`toolpen schema` and `toolpen check`, run as the real command in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtime.schema.test_formats import SEED_GET_CUSTOMER

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
TOOLPEN = [sys.executable, "-c", "from runtime._cli import main; main()"]


def toolpen(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TOOLPEN, *map(str, args)], capture_output=True, text=True, timeout=60)


def test_schema_prints_the_published_definition() -> None:
    result = toolpen("schema", SAMPLES / "get_customer.py", "--format", "responses", "--strict")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {**SEED_GET_CUSTOMER, "strict": True}
    assert result.stdout.startswith('{\n  "type": "function"')
    assert "warning: parameter 'customer_id' is not documented" in result.stderr


@pytest.mark.slow
def test_schema_notes_go_to_stderr_and_name_selects_the_function(tmp_path: Path) -> None:
    tool = tmp_path / "two.py"
    tool.write_text(
        "from typing import Optional\n"
        "def first():\n    'First.'\n"
        "def second(when: Optional[int] = None):\n    '''Second.\n\n    Args:\n        when: When.\n    '''\n"
    )
    result = toolpen("schema", tool, "--name", "second", "--format", "openai", "--strict")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["function"]["name"] == "second"
    assert "note: strict mode refuses 'default': removed (when)" in result.stderr.splitlines()
    assert json.loads(toolpen("schema", tool, "--format", "mcp").stdout)["name"] == "first"


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        (None, 2, "cannot read the file"),
        (b"\xff\xfe not utf-8", 2, "cannot read the file"),
        (b"def tool(:\n    pass\n", 2, ":1:10: error: syntax error"),
        (b"x = 1\n", 2, ":1:1: error: no top-level function"),
        (
            b"def " + b"a" * 65 + b"():\n    'Doc.'\n",
            1,
            ":1:1: error: tool name '" + "a" * 65 + "' is 65 characters",
        ),
    ],
)
def test_schema_exit_codes(tmp_path: Path, content: bytes | None, code: int, message: str) -> None:
    tool = tmp_path / "tool.py"
    if content is not None:
        tool.write_bytes(content)
    result = toolpen("schema", tool)
    assert (result.returncode, result.stdout) == (code, "")
    assert message in result.stderr
    assert str(tool) in result.stderr


def test_check_reports_get_random_fact_undefined_names() -> None:
    result = toolpen("check", SAMPLES / "get_random_fact.py", SAMPLES / "get_last_user_utterance.py")
    assert result.returncode == 1
    fact = SAMPLES / "get_random_fact.py"
    assert result.stdout.splitlines() == [
        f"{fact}:18:46: error: undefined name 'request_body'",
        f"{fact}:18:68: error: undefined name 'headers'",
        "2 error(s), 0 warning(s) in 2 file(s)",
    ]


@pytest.mark.slow
def test_check_clean_and_unreadable_files(tmp_path: Path) -> None:
    clean = toolpen("check", SAMPLES / "update_customer_loyalty_points.py")
    assert (clean.returncode, clean.stdout) == (0, "0 error(s), 0 warning(s) in 1 file(s)\n")
    missing = toolpen("check", SAMPLES / "update_customer_loyalty_points.py", tmp_path / "missing.py")
    assert missing.returncode == 2
    assert "missing.py: error: cannot read the file" in missing.stderr


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["openai", "responses", "gemini", "mcp"])
def test_schema_prints_openapi_tools_beside_a_file(fmt: str) -> None:
    spec = SAMPLES / "openapi" / "crm_service.yaml"
    done = toolpen(
        "schema", SAMPLES / "summarize_cart.py", "--openapi", f"crm_service={spec}", "--format", fmt
    )
    assert done.returncode == 0, done.stderr
    names = [json.dumps(definition) for definition in json.loads(done.stdout)]
    assert '"summarize_cart"' in names[0]
    assert len(names) == 4  # the file's tool, then the spec's three operations
    assert all('"crm_service_' in name for name in names[1:])
    assert '"crm_service_get_cart_information"' in names[1] and '"crm_service_add_cart_item"' in names[2]


def test_schema_needs_a_file_or_openapi() -> None:
    done = toolpen("schema")
    assert done.returncode == 2 and "--openapi" in done.stderr
