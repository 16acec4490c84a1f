"""One tool run: a Python tool in a worker or an endpoint through the broker, with nested calls.

The executor knows nothing of sessions: it takes a context snapshot and returns an
:class:`Outcome` (output and state delta, or a structured error). The runtime decides what
to commit. Nested ``tools.<name>(...)`` calls come back from the worker as RPCs and run here,
inside the same :class:`Invocation` (one deadline, one budget, one delta).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from sandbox.pool import WorkerPool

from runtime.arguments import validate_arguments
from runtime.errors import (
    BudgetExceeded,
    PolicyViolation,
    Timeout,
    ToolFailed,
    ToolpenError,
    error_from_dict,
)
from runtime.http import HttpBroker, RequestBudget
from runtime.registry import EndpointTool, PythonTool, Registry, Tool
from sandbox.limits import Limits

EMPTY_DELTA: dict[str, Any] = {"set": {}, "deleted": []}


@dataclass
class Invocation:
    """What a top-level call shares with the calls it makes: one deadline and its budgets."""

    deadline: float
    max_depth: int
    max_calls: int
    http_budget: RequestBudget
    calls: int = 0
    stack: list[str] = field(default_factory=list)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()


@dataclass
class Outcome:
    """The result of one run, before anything is committed."""

    success: bool
    output: Any = None
    error: ToolpenError | None = None
    state_delta: dict[str, Any] = field(default_factory=lambda: dict(EMPTY_DELTA))
    logs: str = ""


class Executor:
    """Runs tools of one registry on one pool and one broker."""

    def __init__(self, registry: Registry, pool: WorkerPool, broker: HttpBroker, limits: Limits) -> None:
        self.registry = registry
        self.pool = pool
        self.broker = broker
        self.limits = limits

    def run(
        self, tool: Tool, args: dict[str, Any], snapshot: dict[str, Any], invocation: Invocation
    ) -> Outcome:
        """Run ``tool`` once; never raises for faults of the tool or its services."""
        invocation.stack.append(tool.name)
        try:
            if isinstance(tool, PythonTool):
                return self._run_python(tool, args, snapshot, invocation)
            if isinstance(tool, EndpointTool):
                return self._run_endpoint(tool, args, invocation)
            raise PolicyViolation(f"tool {tool.name!r} has no way to run")
        except ToolpenError as error:
            return Outcome(success=False, error=error)
        finally:
            invocation.stack.pop()

    def _run_python(
        self, tool: PythonTool, args: dict[str, Any], snapshot: dict[str, Any], invocation: Invocation
    ) -> Outcome:
        limits = tool.limits or self.limits
        remaining = invocation.remaining()
        if remaining <= 0:
            raise Timeout("the call's deadline passed before this tool could start")
        if remaining < limits.wall_time:
            limits = limits.merged({"wall_time": remaining, "cpu_time": min(limits.cpu_time, remaining)})
        job = {
            "op": "call",
            "source": tool.source,
            "entry": tool.name,
            "args": args,
            "context": snapshot,
            "limits": limits.to_dict(),
        }

        def answer(target: str, method: str, params: dict[str, Any]) -> Any:
            return self._answer_rpc(target, method, params, snapshot, invocation)

        done = self.pool.run(job, limits, answer)
        logs = done.get("logs", "")
        if done.get("success"):
            delta = done.get("state_delta") or dict(EMPTY_DELTA)
            return Outcome(success=True, output=done.get("output"), state_delta=delta, logs=logs)
        return Outcome(success=False, error=error_from_dict(done.get("error") or {}), logs=logs)

    def _run_endpoint(self, tool: EndpointTool, args: dict[str, Any], invocation: Invocation) -> Outcome:
        output = tool.endpoint.invoke(
            args, broker=self.broker, budget=invocation.http_budget, deadline=invocation.deadline
        )
        return Outcome(success=True, output=output)

    def _answer_rpc(
        self,
        target: str,
        method: str,
        params: dict[str, Any],
        snapshot: dict[str, Any],
        invocation: Invocation,
    ) -> Any:
        if target == "http" and method == "request":
            return self.broker.handle(params, budget=invocation.http_budget, deadline=invocation.deadline)
        if target == "tools" and method == "call":
            return self._nested_call(params, snapshot, invocation)
        raise PolicyViolation(f"unknown host service {target}.{method}")

    def _nested_call(self, params: dict[str, Any], snapshot: dict[str, Any], invocation: Invocation) -> Any:
        name = str(params.get("name", ""))
        if name in invocation.stack:
            raise BudgetExceeded(f"tool call cycle: {' -> '.join([*invocation.stack, name])}")
        if len(invocation.stack) > invocation.max_depth:
            raise BudgetExceeded(f"nested tool calls deeper than {invocation.max_depth}")
        invocation.calls += 1
        if invocation.calls > invocation.max_calls:
            raise BudgetExceeded(f"more than {invocation.max_calls} tool calls in one call")
        tool = self.registry.get(name)
        args = validate_arguments(tool.spec.parameters, params.get("args") or {})
        nested = dict(snapshot, state=params.get("state", snapshot.get("state", {})))
        nested["function_call_id"] = f"call_{uuid.uuid4().hex[:16]}"
        outcome = self.run(tool, args, nested, invocation)
        if not outcome.success:
            error = outcome.error or ToolFailed(f"tool {name!r} failed")
            raise type(error)(f"tool {name!r} failed: {error.message}")
        return {"output": outcome.output, "state_delta": outcome.state_delta}
