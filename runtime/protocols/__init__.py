"""Protocol adapters: Agents API sessions (`agents`), Chat Completions (`chat`), MCP (`mcp`).

What the adapters share lives here: running the calls of one model response through the one
turn runner, :meth:`runtime.Runtime.run_turn` (a ``tool_search`` call answered here), one call
as a framework's own tool runs it (``run_call``), and turning a result into text. A call is a
``runtime._calls.ToolCall``; what it answers is a ``TurnCall`` (its ``ToolResult``, and for an
``ASYNCHRONOUS`` tool the future of its later result), the same types as every other caller's.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from runtime._calls import ToolCall, TurnCall
from runtime._results import ToolResult
from runtime._schema.arguments import validate_arguments
from runtime._search import DEFAULT_LIMIT, ToolIndex
from sandbox.common.errors import InvalidArguments, ToolpenError

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._runtime import Runtime

__all__ = [
    "TOOL_SEARCH",
    "agent_tools",
    "chat_tools",
    "drive_session",
    "error_text",
    "finished_text",
    "handle_required_actions",
    "handle_tool_calls",
    "has_deferred",
    "output_text",
    "parse_arguments",
    "refused",
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
) -> ToolResult:
    """Run one call and wait for its result, as a framework's own tool runs (the adapters): an
    ``ASYNCHRONOUS`` tool too (``Runtime.call``). ``tool_search`` (unless a tool has that name)
    answers ``{"tools": [define(match)]}``."""
    if _is_search(runtime, name):
        return _search(runtime, args, define)
    try:
        return runtime.call(name, args, context=context, session_id=session_id, call_id=call_id)
    except ToolpenError as error:
        return ToolResult(False, error=error)


def run_calls(
    runtime: Runtime,
    calls: Sequence[ToolCall | TurnCall],
    *,
    define: Callable[[Tool], dict[str, Any]],
    session_id: str | None = None,
    context: dict[str, Any] | None = None,
) -> list[TurnCall]:
    """Run the calls of one model response through ``Runtime.run_turn``, answers in order.

    The runtime's ``tool_execution_mode`` decides: ``SEQUENTIAL`` one after the other,
    ``PARALLEL`` (an app's runtime, as CES) at once from the same state, committed in order. An
    ``ASYNCHRONOUS`` tool answers ``{"status": "pending"}`` at once; its ``TurnCall.later`` is
    the future of its result, which a loop sends as a later message (``finished_text``). An item
    that is already a ``TurnCall`` (its arguments did not parse) stays as it is; a
    ``tool_search`` answers here, as it does alone.
    """
    answered: dict[int, TurnCall] = {}
    to_run: dict[int, ToolCall] = {}
    for index, item in enumerate(calls):
        if isinstance(item, TurnCall):
            answered[index] = item
        elif _is_search(runtime, item.tool):
            answered[index] = TurnCall(item, _search(runtime, item.args, define))
        else:
            to_run[index] = item
    ran = runtime.run_turn(list(to_run.values()), context=context, session_id=session_id)
    answered.update(zip(to_run, ran, strict=True))
    return [answered[index] for index in range(len(calls))]


def refused(name: str, error: ToolpenError) -> TurnCall:
    """The answer to a call that cannot run (its arguments or ids are unusable)."""
    return TurnCall(ToolCall(name), ToolResult(False, error=error))


def _search(runtime: Runtime, args: dict[str, Any], define: Callable[[Tool], dict[str, Any]]) -> ToolResult:
    try:
        # The model chose these: a "limit" of "many" or 1e400 used to raise out of the
        # adapter (int() on it) instead of answering the model with an error.
        args = validate_arguments(TOOL_SEARCH_PARAMETERS, args)
    except ToolpenError as error:
        return ToolResult(False, error=error)
    found = search_deferred(runtime, args["query"], args.get("limit", DEFAULT_LIMIT))
    return ToolResult(True, {"tools": [define(tool) for tool in found]})


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


def finished_text(started: Sequence[tuple[str, TurnCall]]) -> str:
    """The later message of asynchronous calls that have ended (``(the model's call id, the
    call)`` each; waits for any still running): one line per call, naming the call id the model
    was answered ``{"status": "pending"}`` under."""
    lines = []
    for call_id, answered in started:
        assert answered.later is not None
        result = answered.later.result()
        text = output_text(result.output) if result.success else error_text(result.error)
        lines.append(f"The result of {answered.call.tool} (call {call_id}), which answered pending: {text}")
    return "\n".join(lines)
