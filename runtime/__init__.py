"""toolpen's trusted host side. The public API is what this module exports (``__all__``).

What a host builds and calls (``Runtime``, ``Tool``, ``ToolResult``, ``Limits``, ``EgressPolicy``,
...), and every error kind with the families a host can catch (``sandbox/common/errors.py`` draws
the tree). Besides these, the public subpackages are ``runtime.protocols`` (the Agents API, Chat
Completions and MCP loops: ``runtime.protocols.agents``, ``.chat``, ``.mcp``, ``.profiles``),
``runtime.adapters`` (``.openai_agents``, ``.adk``, ``.langchain``), ``runtime.app`` (exported CES
applications) and ``runtime.store`` (session stores); each declares its ``__all__``.

The names load lazily, so that importing one of them does not pull in the whole host (pool,
store, HTTP broker).
"""

import typing as _typing
from importlib import import_module as _import_module

if _typing.TYPE_CHECKING:
    from runtime._callbacks import Hook
    from runtime._calls import ToolCall, TurnCall
    from runtime._check import check_source
    from runtime._egress import EgressPolicy
    from runtime._registry import Tool, ToolOptions
    from runtime._results import ToolResult
    from runtime._runtime import Runtime
    from sandbox.common.diagnostics import Diagnostic
    from sandbox.common.errors import (
        ArgumentError,
        BadArchive,
        BudgetExceeded,
        Busy,
        Conflict,
        HttpDenied,
        HttpFailed,
        ImportRefused,
        InvalidApp,
        InvalidArguments,
        InvalidSource,
        InvalidState,
        IsolationError,
        IsolationUnavailable,
        LimitExceeded,
        MemoryExceeded,
        MissingExtra,
        ModelFailed,
        NotFound,
        OutputTooLarge,
        PolicyViolation,
        ProtocolBroken,
        RecursionLimit,
        SessionError,
        SetupError,
        SourceError,
        StoreError,
        StreamEnded,
        Timeout,
        ToolError,
        ToolFailed,
        ToolpenError,
        TransportError,
        UnknownOutcome,
        WorkerCrashed,
    )
    from sandbox.common.limits import Limits
    from sandbox.common.walls import WallsMode

_EXPORTS = {
    "Diagnostic": "sandbox.common.diagnostics",
    "EgressPolicy": "runtime._egress",
    "Hook": "runtime._callbacks",
    "Limits": "sandbox.common.limits",
    "Runtime": "runtime._runtime",
    "Tool": "runtime._registry",
    "ToolCall": "runtime._calls",
    "ToolOptions": "runtime._registry",
    "ToolResult": "runtime._results",
    "TurnCall": "runtime._calls",
    "WallsMode": "sandbox.common.walls",
    "check_source": "runtime._check",
    # the error kinds, family by family (``sandbox/common/errors.py``)
    "ToolpenError": "sandbox.common.errors",
    "SourceError": "sandbox.common.errors",
    "InvalidSource": "sandbox.common.errors",
    "PolicyViolation": "sandbox.common.errors",
    "ArgumentError": "sandbox.common.errors",
    "InvalidArguments": "sandbox.common.errors",
    "NotFound": "sandbox.common.errors",
    "ToolError": "sandbox.common.errors",
    "ToolFailed": "sandbox.common.errors",
    "InvalidState": "sandbox.common.errors",
    "LimitExceeded": "sandbox.common.errors",
    "Timeout": "sandbox.common.errors",
    "Busy": "sandbox.common.errors",
    "MemoryExceeded": "sandbox.common.errors",
    "OutputTooLarge": "sandbox.common.errors",
    "RecursionLimit": "sandbox.common.errors",
    "BudgetExceeded": "sandbox.common.errors",
    "IsolationError": "sandbox.common.errors",
    "WorkerCrashed": "sandbox.common.errors",
    "ProtocolBroken": "sandbox.common.errors",
    "IsolationUnavailable": "sandbox.common.errors",
    "TransportError": "sandbox.common.errors",
    "HttpDenied": "sandbox.common.errors",
    "HttpFailed": "sandbox.common.errors",
    "ModelFailed": "sandbox.common.errors",
    "StreamEnded": "sandbox.common.errors",
    "SessionError": "sandbox.common.errors",
    "UnknownOutcome": "sandbox.common.errors",
    "Conflict": "sandbox.common.errors",
    "StoreError": "sandbox.common.errors",
    "SetupError": "sandbox.common.errors",
    "MissingExtra": "sandbox.common.errors",
    "ImportRefused": "sandbox.common.errors",
    "InvalidApp": "sandbox.common.errors",
    "BadArchive": "sandbox.common.errors",
}

__all__ = [
    "ArgumentError",
    "BadArchive",
    "BudgetExceeded",
    "Busy",
    "Conflict",
    "Diagnostic",
    "EgressPolicy",
    "Hook",
    "HttpDenied",
    "HttpFailed",
    "ImportRefused",
    "InvalidApp",
    "InvalidArguments",
    "InvalidSource",
    "InvalidState",
    "IsolationError",
    "IsolationUnavailable",
    "LimitExceeded",
    "Limits",
    "MemoryExceeded",
    "MissingExtra",
    "ModelFailed",
    "NotFound",
    "OutputTooLarge",
    "PolicyViolation",
    "ProtocolBroken",
    "RecursionLimit",
    "Runtime",
    "SessionError",
    "SetupError",
    "SourceError",
    "StoreError",
    "StreamEnded",
    "Timeout",
    "Tool",
    "ToolCall",
    "ToolError",
    "ToolFailed",
    "ToolOptions",
    "ToolResult",
    "ToolpenError",
    "TransportError",
    "TurnCall",
    "UnknownOutcome",
    "WallsMode",
    "WorkerCrashed",
    "check_source",
]


def __getattr__(name: str) -> _typing.Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'runtime' has no attribute {name!r}")
    return getattr(_import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
