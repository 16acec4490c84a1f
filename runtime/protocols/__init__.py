"""Protocol adapters: Agents API sessions (`agents`), Chat Completions (`chat`), MCP (`mcp`).

What the adapters share lives here: running one model-requested call through a
:class:`runtime.Runtime` (a ``tool_search`` call included) and turning a result into text.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runtime.execution import ToolCall
from runtime.schema.arguments import validate_arguments
from runtime.search import DEFAULT_LIMIT, ToolIndex
from sandbox.common.errors import InvalidArguments, ToolpenError

if TYPE_CHECKING:
    from runtime.registry import Tool
    from runtime.runtime import Runtime

__all__ = [
    "TOOL_SEARCH",
    "CallOutcome",
    "CallRequest",
    "agent_tools",
    "chat_tools",
    "drive_session",
    "error_text",
    "handle_required_actions",
    "handle_tool_calls",
    "has_deferred",
    "output_text",
    "parse_arguments",
    "run_call",
    "run_calls",
    "run_chat",
    "search_deferred",
    "send_results",
]
"""What a host needs: the shared helpers defined here, and the loops of ``agents`` and ``chat``
(imported when first named, since those modules import this one)."""

_LOOPS = {
    "agent_tools": "runtime.protocols.agents",
    "drive_session": "runtime.protocols.agents",
    "handle_required_actions": "runtime.protocols.agents",
    "send_results": "runtime.protocols.agents",
    "chat_tools": "runtime.protocols.chat",
    "handle_tool_calls": "runtime.protocols.chat",
    "run_chat": "runtime.protocols.chat",
}


def __getattr__(name: str) -> Any:
    module = _LOOPS.get(name)
    if module is None:
        raise AttributeError(f"module 'runtime.protocols' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


TOOL_SEARCH = "tool_search"
TOOL_SEARCH_DESCRIPTION = (
    "Search the tools that are not loaded yet by what they do. Returns the definitions of the best "
    "matches; they can be called from the next turn on."
)
TOOL_SEARCH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What the tool should do, in a few words."},
        "limit": {"type": "integer", "description": "How many tools to return at most.", "minimum": 1},
    },
    "required": ["query"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class CallOutcome:
    """One call's outcome as protocols report it; ``replayed`` when it is a stored earlier result."""

    success: bool
    output: Any = None
    error: ToolpenError | None = None
    replayed: bool = False


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """Call arguments as an object: already one (Agents API) or a JSON string (Chat Completions)."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if arguments is None or not str(arguments).strip():
        return {}
    try:
        args = json.loads(arguments)
    except json.JSONDecodeError as error:
        raise InvalidArguments(
            f"the arguments are not valid JSON ({error.msg} at character {error.pos})"
        ) from None
    except ValueError as error:  # an integer of more than 4,300 digits
        raise InvalidArguments(f"the arguments hold a number JSON cannot take: {error}") from None
    except RecursionError:
        raise InvalidArguments("the arguments are nested too deeply") from None
    if not isinstance(args, dict):
        raise InvalidArguments(f"the arguments must be a JSON object, not {type(args).__name__}")
    return args


def has_deferred(runtime: Runtime) -> bool:
    return any(tool.options.defer_loading for tool in runtime.tools(include_deferred=True))


def search_deferred(runtime: Runtime, query: str, limit: int = DEFAULT_LIMIT) -> list[Tool]:
    """The deferred tools that best match ``query`` (BM25), best first."""
    deferred = [tool for tool in runtime.tools(include_deferred=True) if tool.options.defer_loading]
    return ToolIndex(deferred).search(query, limit)


def run_call(
    runtime: Runtime,
    name: str,
    args: dict[str, Any],
    *,
    define: Callable[[Tool], dict[str, Any]],
    session_id: str | None = None,
    call_id: str | None = None,
    context: dict[str, Any] | None = None,
) -> CallOutcome:
    """Run one call; ``tool_search`` (unless a tool has that name) answers ``{"tools": [define(match)]}``."""
    if _is_search(runtime, name):
        try:
            # The model chose these: a "limit" of "many" or 1e400 used to raise out of the
            # adapter (int() on it) instead of answering the model with an error.
            args = validate_arguments(TOOL_SEARCH_PARAMETERS, args)
        except ToolpenError as error:
            return CallOutcome(False, error=error)
        found = search_deferred(runtime, args["query"], args.get("limit", DEFAULT_LIMIT))
        return CallOutcome(True, {"tools": [define(tool) for tool in found]})
    try:
        result = runtime.call(name, args, context=context, session_id=session_id, call_id=call_id)
    except ToolpenError as error:
        return CallOutcome(False, error=error)
    return CallOutcome(result.success, result.output, result.error, bool(result.replayed))


@dataclass(frozen=True)
class CallRequest:
    """One call a model asked for: the tool, its arguments, and toolpen's call id (None: a new one)."""

    name: str
    args: dict[str, Any]
    call_id: str | None = None


def run_calls(
    runtime: Runtime,
    requests: Sequence[CallRequest | CallOutcome],
    *,
    define: Callable[[Tool], dict[str, Any]],
    session_id: str | None = None,
    context: dict[str, Any] | None = None,
) -> list[CallOutcome]:
    """Run the calls of one model response by the runtime's ``tool_execution_mode``, outcomes in order.

    An item that is already a ``CallOutcome`` (its arguments did not parse) stays as it is.
    ``SEQUENTIAL``: one after the other, each through ``run_call``. ``PARALLEL`` (an app's
    runtime, as CES): the tool calls run at once from the same state and commit in order
    (``Runtime.call_many``); a ``tool_search`` answers as it does alone.
    """
    if runtime.tool_execution_mode == "SEQUENTIAL":
        return [
            request
            if isinstance(request, CallOutcome)
            else run_call(
                runtime,
                request.name,
                request.args,
                define=define,
                session_id=session_id,
                call_id=request.call_id,
                context=context,
            )
            for request in requests
        ]
    together = {
        index: request
        for index, request in enumerate(requests)
        if isinstance(request, CallRequest) and not _is_search(runtime, request.name)
    }
    calls = [ToolCall(request.name, request.args, request.call_id) for request in together.values()]
    results = runtime.call_many(calls, mode="PARALLEL", context=context, session_id=session_id)
    ran = {
        index: CallOutcome(result.success, result.output, result.error, bool(result.replayed))
        for index, result in zip(together, results, strict=True)
    }
    return [
        ran[index]
        if index in ran
        else request
        if isinstance(request, CallOutcome)
        else run_call(
            runtime, request.name, request.args, define=define, session_id=session_id, context=context
        )
        for index, request in enumerate(requests)
    ]


def _is_search(runtime: Runtime, name: str) -> bool:
    """``tool_search`` is ours unless a registered tool has that name."""
    return name == TOOL_SEARCH and name not in {tool.name for tool in runtime.tools(include_deferred=True)}


def output_text(output: Any) -> str:
    """A tool's output as text: strings as they are, anything else as JSON."""
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


def error_text(error: ToolpenError | None) -> str:
    """An error message a model can act on, led by its kind."""
    if error is None:
        return "the tool failed without an error message"
    return f"{error.kind}: {error.message}"
