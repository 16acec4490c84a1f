"""The tool calls of one model turn, run as CES runs them (``runtime/execution.py``).

An ``ASYNCHRONOUS`` tool starts (``Runtime.start``) and answers at once with a pending response,
``{"status": "pending"}``, the way ADK's long-running tools answer first; its result comes later,
when its future is done. The other calls run by the app's tool execution mode
(``Runtime.call_many``, the runtime's ``tool_execution_mode``): ``PARALLEL`` at once from the same state, ``SEQUENTIAL`` one after the
other. In ``PARALLEL`` mode the asynchronous tools start first, from that same state.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runtime.execution import ToolCall, ToolExecutionMode, parse_tool_execution_mode
from runtime.results import ToolResult
from runtime.unit_of_work import new_id

if TYPE_CHECKING:
    from runtime.runtime import Runtime

PENDING_OUTPUT: dict[str, Any] = {"status": "pending"}
"""What a started asynchronous tool answers at once (the model is told the result comes later)."""


@dataclass(frozen=True)
class TurnCall:
    """One call of a model turn: its result, or, for a started asynchronous tool, its pending
    response and the future of its result."""

    call: ToolCall
    result: ToolResult
    later: Future[ToolResult] | None = None


def is_asynchronous(runtime: Runtime, name: str) -> bool:
    tool = runtime.registry.find(name)
    return tool is not None and tool.options.execution_type == "ASYNCHRONOUS"


def run_tool_calls(
    runtime: Runtime,
    calls: Sequence[ToolCall],
    *,
    mode: ToolExecutionMode | None = None,
    context: dict[str, Any] | None = None,
    session_id: str | None = None,
    user_id: str | None = None,
) -> list[TurnCall]:
    """Run one model turn's calls by ``mode`` (else the runtime's); results in the calls' order."""
    mode = parse_tool_execution_mode(mode or runtime.tool_execution_mode)
    calls = [call if call.call_id else ToolCall(call.tool, call.args, new_id("call")) for call in calls]
    done: dict[int, TurnCall] = {}

    def start(index: int) -> None:
        call = calls[index]
        assert call.call_id is not None
        later = runtime.start(
            call.tool,
            call.args,
            context=context,
            session_id=session_id,
            call_id=call.call_id,
            user_id=user_id,
        )
        pending = ToolResult(True, dict(PENDING_OUTPUT), call_id=call.call_id, session_id=session_id)
        done[index] = TurnCall(call, pending, later)

    if mode == "PARALLEL":
        at_once = []
        for index, call in enumerate(calls):
            if is_asynchronous(runtime, call.tool):
                start(index)
            else:
                at_once.append(index)
        results = runtime.call_many(
            [calls[index] for index in at_once], context=context, session_id=session_id, user_id=user_id
        )
        done.update(
            {index: TurnCall(calls[index], result) for index, result in zip(at_once, results, strict=True)}
        )
    else:
        for index, call in enumerate(calls):
            if is_asynchronous(runtime, call.tool):
                start(index)
            else:
                (result,) = runtime.call_many(
                    [call], mode="SEQUENTIAL", context=context, session_id=session_id, user_id=user_id
                )
                done[index] = TurnCall(call, result)
    return [done[index] for index in range(len(calls))]
