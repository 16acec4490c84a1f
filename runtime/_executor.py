"""One tool run: callbacks, fakes, then a Python tool in a worker or an endpoint through the broker.

Also a host's agent callbacks (``run_agent_hooks``). The executor knows nothing of sessions: it
takes a context snapshot and returns an :class:`Outcome` (output and state delta, or a
structured error); the unit of work (``runtime/_unit_of_work.py``) decides what to commit. Nested ``tools.<name>(...)`` calls come back from the worker as RPCs and run here,
inside the same :class:`Invocation` (one deadline, one budget, one delta), and go through the
same tool callbacks. A session call's snapshot carries no events: the worker asks for them
(``context.events``) on first use, and the invocation reads them from the store once. Its
``state`` is a :class:`~runtime._state_view.StateView`: a worker gets the large values only when
tool code reads them (``state.read``).
"""

from __future__ import annotations

import contextvars
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from runtime._callbacks import Hook
from runtime._calls import Invocation, Outcome
from runtime._registry import EndpointTool, PythonTool, Registry, Tool
from runtime._state import NO_CHANGE, StateDelta
from runtime._state_view import StateView, StepReads
from sandbox.common.errors import (
    BudgetExceeded,
    OutputTooLarge,
    PolicyViolation,
    Timeout,
    ToolFailed,
    ToolpenError,
)
from sandbox.common.limits import Limits
from sandbox.common.state_delta import check_value_sizes, state_too_large
from sandbox.common.walls import WallsMode
from sandbox.messages import Call, Done
from sandbox.process.pool import WorkerPool

if TYPE_CHECKING:
    from runtime._http import HttpBroker


ANSWER_ROOM = 0.1
"""Seconds before the call's deadline at which an HTTP request gives up: the tool then still has
time to receive the timeout and answer (``ces_requests.Timeout`` is the tool's to catch)."""


_CALL_PATH: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("toolpen_call_path", default=())
"""The tools a nested call was reached through (outermost first). A context variable, not a
field of the invocation: calls started through ``async_tools`` run side by side, each on its
own path (the pool answers them in threads that copy the caller's context)."""


class Trail:
    """The state changes and logs of the steps of one run (callbacks, fake or tool), in order."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.base = snapshot
        self.delta = NO_CHANGE
        self.logs: list[str] = []

    def snapshot(self) -> dict[str, Any]:
        """The context snapshot with every change so far applied (``base`` itself before any)."""
        if not self.delta:
            return self.base
        return {**self.base, "state": self.base["state"].with_delta(self.delta)}

    def absorb(self, reply: Done) -> None:
        """Take a step's logs and, if it succeeded, its state delta."""
        self.logs.append(reply.logs)
        if reply.success:
            self.delta = self.delta.then(reply.state_delta)

    def outcome(
        self,
        output: Any,
        *,
        faked: bool = False,
        replaced_by: str | None = None,
        dropped: list[str] | None = None,
    ) -> Outcome:
        logs = "".join(self.logs)
        return Outcome(True, output, None, self.delta, logs, faked, replaced_by, list(dropped or []))

    def failure(self, error: ToolpenError) -> Outcome:
        return Outcome(False, error=error, logs="".join(self.logs))


class Executor:
    """Runs tools of one registry on one pool and one broker, with the runtime's hooks."""

    def __init__(
        self,
        registry: Registry,
        pool: WorkerPool,
        broker: HttpBroker,
        limits: Limits,
        hooks: dict[str, list[Hook]],
        walls: WallsMode = "all",
        environment: dict[str, str] | None = None,
    ) -> None:
        self.registry = registry
        self.environment = environment or None
        self.walls = walls
        self.pool = pool
        self.broker = broker
        self.limits = limits
        self.hooks = hooks

    def run(
        self, tool: Tool, args: dict[str, Any], snapshot: dict[str, Any], invocation: Invocation
    ) -> Outcome:
        """Run ``tool`` once with its callbacks; never raises for faults of the tool or its services."""
        entered = _CALL_PATH.set((*_CALL_PATH.get(), tool.name))
        trail = Trail(snapshot)
        try:
            return self._run_with_hooks(tool, args, trail, invocation)
        except ToolpenError as error:
            return trail.failure(error)
        finally:
            _CALL_PATH.reset(entered)

    def run_agent_hooks(
        self,
        kind: str,
        llm_request: dict[str, Any] | None,
        llm_response: dict[str, Any] | None,
        snapshot: dict[str, Any],
        invocation: Invocation,
    ) -> Outcome:
        """Run the ``kind`` callbacks (``before_agent``, ``after_model``, ...); the output is the replacement.

        As in CES, they run in registration order and the first that returns something ends the
        chain; None when none replaced anything. A guardrail code callback answers
        ``{"decision": "OK"}`` (carry on, like None) or ``{"decision": "TRIGGER", "reason": ...}``
        (the replacement: the host halts). What they edit in place (``hide_tool`` on the
        request, a changed response) is written back into the host's ``llm_request`` /
        ``llm_response`` dicts when the run succeeds.
        """
        trail = Trail(snapshot)
        values = {"llm_request": llm_request, "llm_response": llm_response}
        replacement = None
        try:
            for hook in list(self.hooks.get(kind, [])):
                replacement = self.run_hook(hook, values, trail, invocation)
                if replacement is not None:
                    replacement = replacement_dict(hook, replacement)
                    if replacement.get("decision") == "OK":  # a guardrail code callback let it pass
                        replacement = None
                        continue
                    break
        except ToolpenError as error:
            return trail.failure(error)
        _write_back(llm_request, values["llm_request"])
        _write_back(llm_response, values["llm_response"])
        return trail.outcome(replacement)

    def limits_for(self, tool: Tool) -> Limits:
        """The limits a tool runs under: its own when it was registered with some, else the runtime's;
        its ``timeout`` (a CES tool's) is the wall time."""
        limits = tool.limits if isinstance(tool, PythonTool) and tool.limits else self.limits
        timeout = tool.options.timeout
        return limits if timeout is None else limits.merged({"wall_time": timeout})

    def image_job(self, tool: PythonTool) -> Call:
        """What the calls of ``tool`` share (no arguments, no context): the job its tool image is
        built from (``WorkerPool.start_image``)."""
        return Call(
            tool.source,
            tool.spec.entry or tool.name,
            limits=self.limits_for(tool).to_dict(),
            walls=self.walls,
            environment=self.environment,
        )

    def run_hook(self, hook: Hook, values: dict[str, Any], trail: Trail, invocation: Invocation) -> Any:
        """Run a callback or fake in the sandbox; its state changes join ``trail``; raises on failure."""
        call = Call(hook.source, hook.entry, hook={"parameters": hook.parameters, "values": values})
        reply = self._in_worker(call, self.limits, trail.snapshot(), invocation)
        trail.absorb(reply)
        if (error := reply.error) is not None:
            raise type(error)(f"{hook.entry} failed: {error.message}", line=error.line, col=error.col)
        values.update(reply.hook_values)  # edited in place (input, llm_request): the next step sees it
        return reply.output

    def _run_with_hooks(
        self, tool: Tool, args: dict[str, Any], trail: Trail, invocation: Invocation
    ) -> Outcome:
        values: dict[str, Any] = {
            "tool": {"name": tool.name, "description": tool.spec.description},
            "input": args,
        }
        for hook in self.hooks.get("before_tool", []):
            replacement = self.run_hook(hook, values, trail, invocation)
            if replacement is not None:
                return trail.outcome(replacement_dict(hook, replacement), replaced_by=hook.entry)
        dropped: list[str] = []
        if values["input"] is not args:  # a callback edited the input: checked like the model's
            args, dropped = declared_arguments(tool, values["input"])
        output, faked = self._fake(tool, values, trail, invocation)
        if not faked:
            reply = self._run_tool(tool, args, trail.snapshot(), invocation)
            trail.absorb(reply)
            if reply.error is not None:
                return trail.failure(reply.error)
            output = reply.output
        replaced_by = None
        for hook in self.hooks.get("after_tool", []):
            replacement = self.run_hook(hook, {**values, "tool_response": output}, trail, invocation)
            if replacement is not None:  # as in CES, the first replacement ends the chain
                output, replaced_by = replacement_dict(hook, replacement), hook.entry
                break
        return trail.outcome(output, faked=invocation.faked, replaced_by=replaced_by, dropped=dropped)

    def _fake(
        self, tool: Tool, values: dict[str, Any], trail: Trail, invocation: Invocation
    ) -> tuple[Any, bool]:
        for hook in self.hooks.get("fake", []):
            if hook.target in (None, tool.name):
                output = self.run_hook(hook, values, trail, invocation)
                if output is not None:
                    invocation.faked = True
                    return output, True
        return None, False

    def _run_tool(
        self, tool: Tool, args: dict[str, Any], snapshot: dict[str, Any], invocation: Invocation
    ) -> Done:
        if isinstance(tool, PythonTool):
            call = Call(
                tool.source, tool.spec.entry or tool.name, args=args, injected=tool.spec.injected or None
            )
            return self._in_worker(call, self.limits_for(tool), snapshot, invocation)
        if isinstance(tool, EndpointTool) and tool.operation is not None:
            output = tool.operation.invoke(
                args, broker=self.broker, budget=invocation.http_budget, deadline=invocation.deadline
            )
            return Done(output=output)
        raise PolicyViolation(f"tool {tool.name!r} has no way to run")

    def _in_worker(
        self, call: Call, limits: Limits, snapshot: dict[str, Any], invocation: Invocation
    ) -> Done:
        """Run ``call`` in a sandbox worker, in ``snapshot`` under this executor's walls, within the
        invocation's deadline."""
        remaining = invocation.remaining()
        if remaining <= 0:
            raise Timeout("the call's deadline passed before this step could start")
        limits = limits.within(remaining)

        state: StateView = snapshot["state"]
        reads = StepReads(state)

        def answer(target: str, method: str, params: dict[str, Any]) -> Any:
            if target == "state" and method == "read":
                return reads.read(params.get("keys"))
            return self._answer_rpc(target, method, params, snapshot, invocation)

        context = {name: value for name, value in snapshot.items() if name != "state"}
        context.update(state.for_worker())
        job = replace(call, context=context, walls=self.walls, environment=self.environment)
        reply = self.pool.run(job, limits, answer)
        return within_state_limit(reply, state, limits)

    def _answer_rpc(
        self,
        target: str,
        method: str,
        params: dict[str, Any],
        snapshot: dict[str, Any],
        invocation: Invocation,
    ) -> Any:
        if target == "http" and method == "request":
            deadline = invocation.deadline - ANSWER_ROOM
            return self.broker.handle(params, budget=invocation.http_budget, deadline=deadline)
        if target == "tools" and method == "call":
            return self._nested_call(params, snapshot, invocation)
        if target == "context" and method == "events":
            return snapshot["events"] if "events" in snapshot else invocation.events()
        raise PolicyViolation(f"unknown host service {target}.{method}")

    def _nested_call(self, params: dict[str, Any], snapshot: dict[str, Any], invocation: Invocation) -> Any:
        name = str(params.get("name", ""))
        path = _CALL_PATH.get()
        if name in path:
            raise BudgetExceeded(f"tool call cycle: {' -> '.join([*path, name])}")
        if len(path) > invocation.max_depth:
            raise BudgetExceeded(f"nested tool calls deeper than {invocation.max_depth}")
        tool = self.registry.get(name)
        args = tool.arguments(params.get("args") or {})
        caller: StateView = snapshot["state"]
        nested = dict(snapshot, state=caller.with_delta(StateDelta.from_dict(params.get("state_delta"))))
        nested["function_call_id"] = f"call_{os.urandom(8).hex()}"
        with invocation.nested_call():
            outcome = self.run(tool, args, nested, invocation)
        if not outcome.success:
            error = outcome.error or ToolFailed(f"tool {name!r} failed")
            raise type(error)(f"tool {name!r} failed: {error.message}")
        return {"output": outcome.output, "state_delta": outcome.state_delta.to_dict()}


def within_state_limit(reply: Done, state: StateView, limits: Limits) -> Done:
    """``reply``, or ``output_too_large`` when a value its delta sets is over
    ``limits.state_value_size`` bytes of JSON (naming the key) or the state it leaves over
    ``limits.state_size`` (from the sizes of the values it changes: the state is not encoded).

    The worker checks this too, but the host does not take a worker's word for it: tool code that
    got past the language wall (or runs under ``walls="process"``) can make the worker say anything.
    """
    if reply.error is not None or not reply.state_delta:
        return reply
    try:
        check_value_sizes(reply.state_delta.set, limits.state_value_size)
    except OutputTooLarge as too_large:
        return Done(error=too_large, logs=reply.logs)
    size = state.size_after(reply.state_delta)
    if size <= limits.state_size:
        return reply
    error = state_too_large(size, limits.state_size, reply.state_delta.set)
    return Done(error=error, logs=reply.logs)


def declared_arguments(tool: Tool, given: Any) -> tuple[dict[str, Any], list[str]]:
    """The arguments a ``before_tool`` callback's input gives the tool, checked like the model's,
    and the keys left out: as ADK's ``FunctionTool`` (whose callbacks CES's are) passes only the
    parameters the function declares (``_prepare_invocation_args``), the callbacks keep the whole
    input (an ``after_tool`` callback sees the keys added)."""
    if not isinstance(given, dict):
        return tool.arguments(given), []
    declared = (tool.spec.parameters or {}).get("properties") or {}
    dropped = [key for key in given if key not in declared]
    return tool.arguments({key: value for key, value in given.items() if key in declared}), dropped


def _write_back(given: dict[str, Any] | None, edited: Any) -> None:
    """A callback's in-place edit of a request or response, into the host's own dict (as CES hosts see it)."""
    if isinstance(given, dict) and isinstance(edited, dict) and edited is not given:
        given.clear()
        given.update(edited)


def replacement_dict(hook: Hook, value: Any) -> dict[str, Any]:
    """A callback's non-None result, which must be a dict (the replacement it chose)."""
    if not isinstance(value, dict):
        raise ToolFailed(f"{hook.entry} must return a dict or None, not {type(value).__name__}")
    return value
