"""Pathological tool sources: every parser and compiler answers ``InvalidSource``, never a
``RecursionError`` or ``MemoryError`` (which the service answered with a 500)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runtime._check import check_source
from runtime._schema import derive_spec
from sandbox.common.errors import InvalidSource
from sandbox.common.parsing import MAX_AST_DEPTH, MAX_SOURCE_CHARS, parse_source
from sandbox.language.compiler import compile_tool
from sandbox.process.plain import compile_plain

HEAD = "def f(x: int) -> int:\n    '''Doc.'''\n    return "

PATHOLOGICAL = {
    "attribute chain": HEAD + "x" + ".a" * 100_000 + "\n",
    "unary minus chain": HEAD + "-" * 100_000 + "x\n",
    "plus one chain": HEAD + "x" + "+1" * 100_000 + "\n",
    "call chain": HEAD + "x" + "()" * 50_000 + "\n",
    "subscript chain": HEAD + "x" + "[0]" * 50_000 + "\n",
    "not chain": HEAD + "not " * 50_000 + "x\n",
    "lambda nesting": HEAD + "lambda: " * 10_000 + "x\n",
    "parenthesis nesting": HEAD + "(" * 5_000 + "x" + ")" * 5_000 + "\n",
    "chain past the depth bound": HEAD + "x" + "+1" * (MAX_AST_DEPTH + 10) + "\n",
    "string annotation chain": "def f(x: '" + "-" * 100_000 + "int') -> int:\n    '''Doc.'''\n    return 1\n",
}

COMPILERS: dict[str, Callable[[str], Any]] = {
    "reader": derive_spec,
    "restricted compiler": compile_tool,
    "plain compiler": compile_plain,
}


def in_thread(func: Callable[[], Any]) -> Any:
    """Run ``func`` on a fresh thread (as the service does), returning what it returned or raised."""
    outcome: list[Any] = []
    thread = threading.Thread(target=lambda: outcome.append(_capture(func)))
    thread.start()
    thread.join(60)
    return outcome[0]


def _capture(func: Callable[[], Any]) -> Any:
    try:
        return func()
    except BaseException as error:  # noqa: BLE001 - what escaped is the finding
        return error


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("case", [case for case in PATHOLOGICAL if case != "string annotation chain"])
def test_pathological_sources_are_invalid_source(case: str, compiler: str) -> None:
    outcome = in_thread(lambda: COMPILERS[compiler](PATHOLOGICAL[case]))
    assert isinstance(outcome, InvalidSource), outcome
    assert "nested too deeply" in outcome.message or "syntax error" in outcome.message


def test_a_deep_string_annotation_is_a_diagnostic() -> None:
    spec = in_thread(lambda: derive_spec(PATHOLOGICAL["string annotation chain"]))
    assert not isinstance(spec, BaseException), spec
    assert any("not a valid expression" in d.message for d in spec.errors)


@pytest.mark.parametrize("case", PATHOLOGICAL)
def test_check_reports_them_as_diagnostics(case: str) -> None:
    diagnostics = in_thread(lambda: check_source(PATHOLOGICAL[case]))
    assert not isinstance(diagnostics, BaseException), diagnostics
    assert any(d.level == "error" for d in diagnostics)


def test_chains_within_the_bound_still_compile() -> None:
    source = HEAD + "x" + "+1" * (MAX_AST_DEPTH - 10) + "\n"
    for compiler in COMPILERS.values():
        assert not isinstance(in_thread(lambda c=compiler: c(source)), BaseException)


def test_too_long_a_source_is_refused_before_parsing() -> None:
    with pytest.raises(InvalidSource, match="characters long"):
        parse_source("#" * (MAX_SOURCE_CHARS + 1))


@pytest.mark.slow
@pytest.mark.parametrize("command", ["check", "schema"])
def test_the_cli_answers_them_with_a_located_error(tmp_path: Path, command: str) -> None:
    tool = tmp_path / "chain.py"
    tool.write_text(PATHOLOGICAL["attribute chain"])
    result = subprocess.run(
        [sys.executable, "-c", "from runtime._cli import main; main()", command, str(tool)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode in (1, 2)
    assert "nested too deeply" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


COMPILER_ONLY_ERRORS = {
    "return outside a function": "return 1\n",
    "break outside a loop": "break\n",
    "yield outside a function": "x = yield\n",
    "await outside a function": "await x\n",
    "nonlocal at module level": "nonlocal x\n",
    "duplicate argument": "def g(a, a):\n    return a\n",
    "global after assignment": "def g():\n    y = 1\n    global y\n",
    "unknown future": "from __future__ import braces\n",
}
"""Sources the parser accepts and only ``compile()`` refuses: each escaped as a ``SyntaxError``."""


@pytest.mark.parametrize("compiler", ["restricted compiler", "plain compiler"])
@pytest.mark.parametrize("case", COMPILER_ONLY_ERRORS)
def test_what_only_the_compiler_refuses_is_invalid_source(case: str, compiler: str) -> None:
    source = "def f(x: int) -> int:\n    return x\n\n\n" + COMPILER_ONLY_ERRORS[case]
    outcome = in_thread(lambda: COMPILERS[compiler](source))
    assert isinstance(outcome, InvalidSource), outcome
    assert "syntax error" in outcome.message and outcome.line is not None and outcome.line >= 5
