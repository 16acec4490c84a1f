"""In-process attacks on the language wall, and the helper that runs tool source through it."""

from __future__ import annotations

from typing import Any

from sandbox.language.compiler import compile_tool
from sandbox.language.namespace import OutputCapture, build_globals, install_process_hooks


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
    return namespace[entry](**(args or {})), output
