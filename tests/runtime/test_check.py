"""runtime._check: every diagnostic of a tool file, located."""

from __future__ import annotations

from pathlib import Path

from runtime._check import check_source
from sandbox.language.module_allowlist import ALLOWED_MODULES

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_get_random_fact_reports_its_undefined_names_with_lines() -> None:
    source = (SAMPLES / "get_random_fact.py").read_text()
    line = source.splitlines()[17]
    assert "ces_requests.get(url=url, json=request_body, headers=headers)" in line
    errors = [(d.line, d.col, d.message, d.code) for d in check_source(source) if d.level == "error"]
    assert errors == [
        (18, line.index("request_body") + 1, "undefined name 'request_body'", "pyflakes"),
        (18, line.index("headers=") + len("headers=") + 1, "undefined name 'headers'", "pyflakes"),
    ]


def test_injected_globals_are_defined() -> None:
    for name in ("get_last_user_utterance", "update_customer_loyalty_points"):
        assert check_source((SAMPLES / f"{name}.py").read_text()) == []


def test_syntax_error_is_one_located_error() -> None:
    diagnostics = check_source("def tool(:\n    pass\n")
    assert [(d.level, d.line, d.code) for d in diagnostics] == [("error", 1, "syntax")]


def test_no_function_is_an_error() -> None:
    diagnostics = check_source("x = 1\n")
    assert [(d.level, d.line, d.code) for d in diagnostics] == [("error", 1, "schema")]
    assert "no top-level function" in diagnostics[0].message


from sandbox.language.compiler import UNGUARDED_NOTE  # noqa: E402
from sandbox.language.refused_modules import refusal_reason  # noqa: E402

ALLOWED = ", ".join(sorted(ALLOWED_MODULES))
PROCESS_WALL = (
    '(under --walls process, walls="process", tools import any installed module: '
    "the whole standard library, numpy, protobuf)"
)


def test_all_kinds_of_findings_together_and_sorted() -> None:
    source = (
        "import json\n"
        "import subprocess\n"
        "def BadName(a: int, b):\n"
        '    """Do it.\n'
        "\n"
        "    Args:\n"
        "        a: The a.\n"
        "        c: Not a parameter.\n"
        '    """\n'
        "    return missing + a\n"
    )
    found = [(d.line, d.level, d.code, d.message) for d in check_source(source)]
    assert found == sorted(found, key=lambda item: item[0])
    assert (1, "warning", "pyflakes", "'json' imported but unused") in found
    assert (
        2,
        "error",
        "policy",
        f'import of module "subprocess" is not allowed: {refusal_reason("subprocess")}; tools may import: {ALLOWED} {PROCESS_WALL}'
        + UNGUARDED_NOTE,
    ) in found
    assert any(
        found_item[:3] == (3, "warning", "name") and "tool name 'BadName' is not snake_case" in found_item[3]
        for found_item in found
    )
    assert (3, "warning", "docstring", "parameter 'b' is not documented") in found
    assert (
        8,
        "warning",
        "docstring",
        "the docstring documents 'c', which is not a parameter of 'BadName'",
    ) in found
    assert (10, "error", "pyflakes", "undefined name 'missing'") in found


def test_walls_process_leaves_out_the_language_walls_findings() -> None:
    source = 'import socket\n\n\ndef where() -> str:\n    """Where the worker runs."""\n    return socket.gethostname()\n'
    assert [d.code for d in check_source(source)] == ["policy"]
    assert check_source(source, walls="process") == []
