"""The public Python API: ``Runtime``, ``ToolResult``.

A runtime owns a registry of tools, a pool of sandbox workers, an HTTP broker and a session
store. ``call`` validates the arguments, runs the tool under the session's lock and commits the
state delta and the call's events atomically, only when the call succeeds.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runtime.arguments import validate_arguments
from runtime.egress import EgressPolicy
from runtime.errors import InvalidSource, ToolpenError, UnknownOutcome, error_from_dict
from runtime.executor import Executor, Invocation, Outcome
from runtime.formats import lower
from runtime.http import HttpBroker
from runtime.openapi import OpenApiToolset
from runtime.registry import EndpointTool, PythonTool, Registry, Tool, ToolOptions
from runtime.schema import derive_spec
from runtime.session import CallRecord, Session, StateDelta, call_events
from runtime.store import Store, open_store
from sandbox.compiler import compile_tool
from sandbox.limits import Limits
from sandbox.pool import WorkerPool


@dataclass
class ToolResult:
    """What one call produced. ``error`` is None on success."""

    success: bool
    output: Any = None
    error: ToolpenError | None = None
    logs: str = ""
    state_delta: dict[str, Any] = field(default_factory=lambda: StateDelta().to_dict())
    state: dict[str, Any] = field(default_factory=dict)
    call_id: str = ""
    session_id: str | None = None
    replayed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: ``{"success", "output", "error", "state", "state_delta", "logs"}``."""
        return {
            "success": self.success,
            "output": self.output,
            "error": self.error.to_dict() if self.error else None,
            "state": self.state,
            "state_delta": self.state_delta,
            "logs": self.logs,
        }

    def stored(self) -> dict[str, Any]:
        """What a call record keeps, so a retry can answer without running."""
        return {**self.to_dict(), "state": None}


def _result_from_record(record: CallRecord, state: dict[str, Any]) -> ToolResult:
    data = record.result or {}
    error = data.get("error")
    return ToolResult(
        success=bool(data.get("success")),
        output=data.get("output"),
        error=error_from_dict(error) if error else None,
        logs=data.get("logs", ""),
        state_delta=data.get("state_delta") or StateDelta().to_dict(),
        state=state,
        call_id=record.call_id,
        session_id=record.session_id,
        replayed=True,
    )


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class Runtime:
    """Registers tools and runs them in the sandbox. Thread-safe; use as a context manager."""

    def __init__(
        self,
        *,
        limits: Limits | None = None,
        store: str | Store = "memory://",
        egress: EgressPolicy | None = None,
        pool_size: int = 2,
        reuse_workers: bool = False,
        app_name: str = "toolpen",
        user_id: str = "user",
        agent_name: str = "agent",
        max_depth: int = 5,
        max_calls: int = 50,
    ) -> None:
        self.limits = limits or Limits()
        self.store = open_store(store) if isinstance(store, str) else store
        self.broker = HttpBroker(egress or EgressPolicy())
        self.registry = Registry()
        self.pool = WorkerPool(size=pool_size, reuse=reuse_workers)
        self.executor = Executor(self.registry, self.pool, self.broker, self.limits)
        self.app_name = app_name
        self.user_id = user_id
        self.agent_name = agent_name
        self.max_depth = max_depth
        self.max_calls = max_calls

    # -- registration ---------------------------------------------------------------------

    def add_tool(
        self,
        source: str,
        name: str | None = None,
        *,
        limits: Limits | None = None,
        defer_loading: bool = False,
        idempotent: bool = False,
        read_only: bool = False,
        replace: bool = False,
    ) -> Tool:
        """Register a Python tool from its source text; raises ``InvalidSource`` / ``PolicyViolation``."""
        spec = derive_spec(source, name)
        if spec.errors:
            first = spec.errors[0]
            raise InvalidSource(first.message, line=first.line, col=first.col)
        compile_tool(source)
        self.pool.warm(source)
        options = ToolOptions(defer_loading=defer_loading, idempotent=idempotent, read_only=read_only)
        tool = PythonTool(name=spec.name, spec=spec, options=options, source=source, limits=limits)
        return self.registry.add(tool, replace=replace)

    def add_tool_file(self, path: str | Path, name: str | None = None, **options: Any) -> Tool:
        """Register the tool defined in a Python file."""
        return self.add_tool(Path(path).read_text(encoding="utf-8"), name, **options)

    def add_openapi(
        self,
        toolset: str,
        spec: str | Path | dict[str, Any],
        *,
        server: str | None = None,
        auth: dict[str, str] | None = None,
        replace: bool = False,
    ) -> list[Tool]:
        """Register one tool per operation of an OpenAPI 3.x document (a path or a dict)."""
        if isinstance(spec, dict):
            endpoints = OpenApiToolset.from_dict(toolset, spec, server=server, auth=auth)
        else:
            endpoints = OpenApiToolset.from_file(toolset, spec, server=server, auth=auth)
        tools: list[Tool] = []
        for endpoint in endpoints.tools:
            tool = EndpointTool(name=endpoint.name, spec=endpoint.spec, endpoint=endpoint)
            tools.append(self.registry.add(tool, replace=replace))
        return tools

    def get_tool(self, name: str) -> Tool:
        """The registered tool ``name``; raises ``NotFound``."""
        return self.registry.get(name)

    def tools(self, *, include_deferred: bool = True) -> list[Tool]:
        """The registered tools, in registration order."""
        return [tool for tool in self.registry if include_deferred or not tool.options.defer_loading]

    def schemas(
        self, fmt: str = "openai", *, strict: bool = False, include_deferred: bool = False
    ) -> list[dict]:
        """The definitions of the (initially loaded) tools in one format."""
        return [
            lower(t.spec, fmt, strict=strict).schema for t in self.tools(include_deferred=include_deferred)
        ]

    # -- calls ----------------------------------------------------------------------------

    def call(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        context: dict[str, Any] | None = None,
        session_id: str | None = None,
        call_id: str | None = None,
        user_id: str | None = None,
    ) -> ToolResult:
        """Run tool ``name`` with ``args``; never raises for a fault of the tool or its input."""
        context = dict(context or {})
        call_id = call_id or context.get("function_call_id") or _new_id("call")
        args = {} if args is None else args
        try:
            tool = self.registry.get(name)
            args = validate_arguments(tool.spec.parameters, args)
        except ToolpenError as error:
            return ToolResult(
                success=False,
                error=error,
                call_id=call_id,
                session_id=session_id,
                state=dict(context.get("state") or {}),
            )
        if session_id is None:
            return self._call_ephemeral(tool, args, context, call_id)
        return self._call_in_session(tool, args, context, call_id, session_id, user_id or self.user_id)

    async def acall(self, name: str, args: dict[str, Any] | None = None, **kwargs: Any) -> ToolResult:
        """``call`` for asyncio: the same implementation, run in a worker thread."""
        return await asyncio.to_thread(self.call, name, args, **kwargs)

    def _snapshot(
        self,
        context: dict[str, Any],
        state: dict[str, Any],
        call_id: str,
        session_id: str,
        events: list[dict[str, Any]],
    ) -> dict[str, Any]:
        return {
            "state": state,
            "events": events,
            "user_content": context.get("user_content") or {"role": "user", "parts": []},
            "function_call_id": call_id,
            "session_id": session_id,
            "invocation_id": context.get("invocation_id") or _new_id("inv"),
            "agent_name": context.get("agent_name") or self.agent_name,
        }

    def _run(self, tool: Tool, args: dict[str, Any], snapshot: dict[str, Any]) -> Outcome:
        limits = getattr(tool, "limits", None) or self.limits
        invocation = Invocation(
            deadline=time.monotonic() + limits.wall_time,
            max_depth=self.max_depth,
            max_calls=self.max_calls,
            http_budget=self.broker.new_budget(),
        )
        return self.executor.run(tool, args, snapshot, invocation)

    def _call_ephemeral(
        self, tool: Tool, args: dict[str, Any], context: dict[str, Any], call_id: str
    ) -> ToolResult:
        state = dict(context.get("state") or {})
        events = list(context.get("events") or [])
        snapshot = self._snapshot(context, state, call_id, context.get("session_id") or "", events)
        outcome = self._run(tool, args, snapshot)
        return self._result(outcome, state, call_id, None)

    def _call_in_session(
        self,
        tool: Tool,
        args: dict[str, Any],
        context: dict[str, Any],
        call_id: str,
        session_id: str,
        user_id: str,
    ) -> ToolResult:
        try:
            with self.store.lock(session_id):
                session = self.store.get_or_create_session(
                    self.app_name, user_id, session_id, context.get("state")
                )
                earlier = self.store.begin_call(session_id, call_id, tool.name, args)
                if earlier is not None and earlier.finished:
                    return _result_from_record(earlier, session.state)
                if earlier is not None and not tool.options.idempotent:
                    raise UnknownOutcome(
                        f"call {call_id!r} of tool {tool.name!r} started earlier but stored no result; "
                        "it may have had effects, so it is not run again"
                    )
                return self._run_and_commit(tool, args, context, call_id, session)
        except ToolpenError as error:
            return ToolResult(success=False, error=error, call_id=call_id, session_id=session_id)

    def _run_and_commit(
        self, tool: Tool, args: dict[str, Any], context: dict[str, Any], call_id: str, session: Session
    ) -> ToolResult:
        events = [event.to_dict() for event in session.events]
        given = context.get("state") or {}
        temp = {key: value for key, value in given.items() if key.startswith("temp:")}
        snapshot = self._snapshot(context, {**session.state, **temp}, call_id, session.id, events)
        outcome = self._run(tool, args, snapshot)
        result = self._result(outcome, session.state, call_id, session.id)
        if not outcome.success:
            self.store.fail_call(session.id, call_id, result.stored())
            return result
        delta = StateDelta.from_dict(outcome.state_delta)
        response = {"result": outcome.output}
        new_events = call_events(
            call_id=call_id,
            tool=tool.name,
            args=args,
            response=response,
            delta=delta,
            author=snapshot["agent_name"],
            invocation_id=snapshot["invocation_id"],
        )
        try:
            self.store.commit_call(session.id, call_id, delta, new_events, result.stored())
        except ToolpenError as error:
            failed = ToolResult(
                success=False,
                error=error,
                logs=outcome.logs,
                state=session.state,
                call_id=call_id,
                session_id=session.id,
            )
            self.store.fail_call(session.id, call_id, failed.stored())
            return failed
        result.state = {k: v for k, v in result.state.items() if not k.startswith("temp:")}
        return result

    @staticmethod
    def _result(outcome: Outcome, state: dict[str, Any], call_id: str, session_id: str | None) -> ToolResult:
        if not outcome.success:
            return ToolResult(
                success=False,
                error=outcome.error,
                logs=outcome.logs,
                state=state,
                call_id=call_id,
                session_id=session_id,
            )
        delta = StateDelta.from_dict(outcome.state_delta)
        return ToolResult(
            success=True,
            output=outcome.output,
            logs=outcome.logs,
            state_delta=delta.to_dict(),
            state=delta.apply_to(state),
            call_id=call_id,
            session_id=session_id,
        )

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Stop the workers and close the store."""
        self.pool.close()
        self.store.close()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
