"""Compile tool source under the language policy (RestrictedPython with ``ToolPolicy``)."""

from __future__ import annotations

import ast
import functools
import types

from sandbox.common.diagnostics import Diagnostic
from sandbox.common.errors import InvalidSource, PolicyViolation
from sandbox.common.parsing import parse_source
from sandbox.language.policy import Located, RefusedImport, ToolPolicy

TOOL_FILENAME = "<tool>"
"""The file name of tool code in code objects and tracebacks (how the worker finds the tool's lines)."""


GUARDED_NOTE = " (it raises ImportError when it runs, which the except clause around it catches)"
UNGUARDED_NOTE = " (it raises ImportError when it runs)"


def compile_tool(source: str, filename: str = TOOL_FILENAME) -> types.CodeType:
    """Restricted code object for ``source``; raises the first ``InvalidSource``/``PolicyViolation``."""
    return _compile_cached(source, filename)


@functools.lru_cache(maxsize=128)
def _compile_cached(source: str, filename: str) -> types.CodeType:
    tree, problems = _transform(source)
    if problems:
        line, col, message = problems[0]
        raise PolicyViolation(f"line {line}: {message}", line=line, col=col)
    return compile_tree(tree, filename)


def compile_tree(tree: ast.Module, filename: str) -> types.CodeType:
    """``compile()`` of a parsed tree; what only the compiler finds ('return' outside a function, a
    duplicate argument, ``nonlocal`` at module level) is ``InvalidSource`` too, never a ``SyntaxError``
    (which reached the service as a 500)."""
    try:
        return compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as error:
        line, col = error.lineno or 1, error.offset or 1
        raise InvalidSource(f"line {line}: syntax error: {error.msg}", line=line, col=col) from None


def policy_diagnostics(source: str) -> list[Diagnostic]:
    """Every policy violation of ``source`` (code ``policy``), or its syntax error (code ``syntax``)."""
    try:
        _, problems, refused = _transformed(source)
    except InvalidSource as error:
        return [Diagnostic("error", error.message, error.line or 1, error.col or 1, "syntax")]
    found = [Diagnostic("error", message, line, col, "policy") for line, col, message in problems] + [
        Diagnostic("warning", message + GUARDED_NOTE, line, col, "policy")
        if guarded
        else Diagnostic("error", message + UNGUARDED_NOTE, line, col, "policy")
        for line, col, message, guarded in refused
    ]
    return sorted(found, key=lambda diagnostic: (diagnostic.line, diagnostic.col))


def _transform(source: str) -> tuple[ast.Module, list[Located]]:
    tree, problems, _ = _transformed(source)
    return tree, problems


def _transformed(source: str) -> tuple[ast.Module, list[Located], list[RefusedImport]]:
    try:
        tree = parse_source(source, TOOL_FILENAME)
    except InvalidSource as error:
        where = f"line {error.line}: " if error.line else ""
        raise InvalidSource(where + error.message, line=error.line, col=error.col) from None
    policy = ToolPolicy()
    tree = policy.visit(tree)
    ast.fix_missing_locations(tree)
    return tree, sorted(set(policy.problems)), policy.refused_imports
