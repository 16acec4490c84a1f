"""Every finding about one tool file: schema, docstring, undefined names (pyflakes), sandbox policy.

A file that defines a callback or a fake (a function named ``*_callback`` or ``fake_*``) is
checked for the callback names and signatures instead of a tool schema. Warnings with code
``ces`` say where CES would behave differently (``runtime/_ces_check.py``).
"""

from __future__ import annotations

import ast

from pyflakes import messages
from pyflakes.checker import Checker

from runtime._callbacks import hook_diagnostics, looks_like_hooks
from runtime._ces_check import (
    callback_return_warnings,
    state_value_warnings,
    tool_entry_warnings,
    unnamed_callback_warnings,
)
from runtime._schema import parse_tool_source, spec_from_module
from sandbox.bridges.ces_names import CES_GLOBAL_NAMES
from sandbox.common.diagnostics import Diagnostic
from sandbox.common.errors import InvalidSource
from sandbox.common.walls import WallsMode
from sandbox.language.compiler import policy_diagnostics

INJECTED_GLOBALS = CES_GLOBAL_NAMES
"""Names the runtime defines for every tool and callback (CES's globals and classes), so they are not undefined."""

_PYFLAKES_ERRORS: tuple[type[messages.Message], ...] = (
    messages.UndefinedName,
    messages.UndefinedLocal,
    messages.UndefinedExport,
    messages.DuplicateArgument,
    messages.ReturnOutsideFunction,
    messages.YieldOutsideFunction,
    messages.ContinueOutsideLoop,
    messages.BreakOutsideLoop,
    messages.TwoStarredExpressions,
    messages.TooManyExpressionsInStarredAssignment,
    messages.ForwardAnnotationSyntaxError,
    messages.FutureFeatureNotDefined,
    messages.LateFutureImport,
    messages.DefaultExceptNotLast,
)


NO_TOOL = "no tool here: the file defines no top-level function (its code is still checked)"


def check_source(
    source: str, *, walls: WallsMode = "all", tool_required: bool = True, entry: str | None = None
) -> list[Diagnostic]:
    """All diagnostics of a tool's source, sorted by line and column (no policy ones under ``walls="process"``).

    A file without a top-level function is an error where a tool is required (registering one),
    a note otherwise (``toolpen check`` of a helper module). ``entry`` names the tool's function
    (default: the first top-level one).
    """
    try:
        module = parse_tool_source(source)
    except InvalidSource as error:
        return [_from_error(error, "syntax")]
    if looks_like_hooks(module):
        diagnostics = hook_diagnostics(module) + callback_return_warnings(module)
    elif not tool_required and not any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for node in module.body
    ):
        diagnostics = [Diagnostic("note", NO_TOOL, 1, 1, "schema")]
    else:
        diagnostics = _tool_diagnostics(module, entry) + unnamed_callback_warnings(module)
    diagnostics += state_value_warnings(module)
    diagnostics += pyflakes_diagnostics(module)
    if walls != "process":
        diagnostics += policy_diagnostics(source)
    return sorted(set(diagnostics), key=lambda d: (d.line, d.col, d.level, d.message))


def _tool_diagnostics(module: ast.Module, entry: str | None) -> list[Diagnostic]:
    try:
        spec = spec_from_module(module, entry)
    except InvalidSource as error:
        return [_from_error(error, "schema")]
    entries = [
        node
        for node in module.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == spec.lineno
    ]
    return list(spec.diagnostics) + [w for entry in entries for w in tool_entry_warnings(entry)]


def pyflakes_diagnostics(module: ast.Module) -> list[Diagnostic]:
    """Undefined names and the other pyflakes findings, the injected globals counting as defined."""
    try:
        checker = Checker(module, filename="<tool>", builtins=INJECTED_GLOBALS)
    except (RecursionError, MemoryError):  # pyflakes parses string annotations without a bound
        return [Diagnostic("error", "a string annotation is nested too deeply", 1, 1, "pyflakes")]
    return [
        Diagnostic(
            "error" if isinstance(message, _PYFLAKES_ERRORS) else "warning",
            message.message % message.message_args,
            message.lineno,
            message.col + 1,
            "pyflakes",
        )
        for message in checker.messages
    ]


def _from_error(error: InvalidSource, code: str) -> Diagnostic:
    return Diagnostic("error", error.message, error.line or 1, error.col or 1, code)
