"""Attacks on the walls, and the helpers that run tool source through them: in process, through
the language wall alone (``run_tool``), or through the real ``Runtime`` (``attack``).

An attack through the runtime must end in a structured error (usually kind ``policy``) without
host paths in its message, and the runtime must keep serving ordinary calls afterwards.
"""

from __future__ import annotations

import builtins
import inspect
import textwrap
import types
from typing import Any

from runtime import Runtime
from runtime._results import ToolResult
from sandbox.common.errors import PolicyViolation
from sandbox.language.compiler import compile_tool
from sandbox.language.namespace import OutputCapture, build_globals, install_process_hooks
from sandbox.process.worker import run_coroutine

PACKAGE_DIR = __file__.rsplit("/tests/", 1)[0]
REAL_BUILTINS: tuple[object, ...] = (
    builtins,
    vars(builtins),
    builtins.__import__,
    builtins.open,
    builtins.eval,
    builtins.exec,
    builtins.compile,
    builtins.globals,
)
"""What no attack may hand to tool code: the worker's real builtins and the ways to code from strings."""


def run_tool(
    source: str,
    entry: str = "tool",
    *,
    args: dict[str, Any] | None = None,
    injected: dict[str, object] | None = None,
    output_limit: int = 10_000,
) -> tuple[Any, OutputCapture]:
    """Compile ``source`` under the policy, run it in fresh restricted globals, call ``entry``."""
    install_process_hooks()
    output = OutputCapture(output_limit)
    namespace = build_globals(injected=injected or {}, output=output)
    exec(compile_tool(source), namespace)
    result = namespace[entry](**(args or {}))
    if inspect.iscoroutine(result):
        result = run_coroutine(result)
    return result, output


def attack(rt: Runtime, source: str, args: dict | None = None, **call: object) -> ToolResult:
    """Register ``source`` (dedented) with the runtime and call it."""
    tool = rt.add_tool(textwrap.dedent(source), replace=True)
    return rt.call(tool.name, args or {}, **call)


def assert_refused(rt: Runtime, result: ToolResult, kind: str | tuple[str, ...] = "policy") -> None:
    """A structured refusal of ``kind`` naming no host path; the runtime still serves."""
    assert not result.success, result.output
    assert result.error is not None
    assert result.error.kind in ((kind,) if isinstance(kind, str) else kind), result.error
    assert PACKAGE_DIR not in result.error.message
    ok = attack(rt, "def still_ok() -> int:\n    return 41 + 1\n")
    assert ok.success and ok.output == 42


def assert_refused_when_added_or_called(rt: Runtime, source: str) -> None:
    """Refused at ``add_tool`` (compile time), or refused when called."""
    try:
        result = attack(rt, source)
    except PolicyViolation:
        return  # refused at add_tool (compile time)
    assert_refused(rt, result, ("policy", "tool_error"))  # tool_error: ValueError / read-only AttributeError


def holds_real_builtins(value: Any, depth: int = 0) -> bool:
    """True when ``value`` is, or holds (in containers, a few levels deep), one of ``REAL_BUILTINS`` or a module."""
    if any(value is real for real in REAL_BUILTINS) or isinstance(value, types.ModuleType):
        return True
    if depth > 4:
        return False
    if isinstance(value, dict):
        return any(holds_real_builtins(item, depth + 1) for item in [*value.keys(), *value.values()])
    if isinstance(value, list | tuple | set | frozenset):
        return any(holds_real_builtins(item, depth + 1) for item in value)
    return False
