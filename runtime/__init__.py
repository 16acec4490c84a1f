"""toolpen's trusted host side. The public API is what this module exports.

The names load lazily, so that importing one of them does not pull in the whole host (pool,
store, HTTP broker).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runtime.egress import EgressPolicy
    from runtime.registry import Tool, ToolOptions
    from runtime.results import ToolResult
    from runtime.runtime import Runtime
    from sandbox.common.errors import ToolpenError
    from sandbox.common.limits import Limits

_EXPORTS = {
    "EgressPolicy": "runtime.egress",
    "Limits": "sandbox.common.limits",
    "Runtime": "runtime.runtime",
    "Tool": "runtime.registry",
    "ToolOptions": "runtime.registry",
    "ToolResult": "runtime.results",
    "ToolpenError": "sandbox.common.errors",
}

__all__ = ["EgressPolicy", "Limits", "Runtime", "Tool", "ToolOptions", "ToolResult", "ToolpenError"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'runtime' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
