"""The public Python API: ``Runtime``.

A runtime owns a registry of tools, its callbacks and fakes, a pool of sandbox workers, an
HTTP broker and a session store. ``call`` validates the arguments and hands a
:class:`~runtime.unit_of_work.CallPlan` to the unit of work, which runs the tool (with its
callbacks, through the executor) under the session's lock and commits the state delta and the
call's events atomically, only when the call succeeds. A call that may touch ``app:`` or
``user:`` keys (``runtime/_shared_scopes.py``) also holds those scopes' locks.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from runtime._callbacks import Hook, parse_hooks
from runtime._calls import PENDING_OUTPUT, CallPlan, Invocation, Outcome, ToolCall, TurnCall
from runtime._egress import EgressPolicy
from runtime._execution import (
    ExecutionType,
    ToolExecutionMode,
    parse_execution_type,
    parse_tool_execution_mode,
)
from runtime._executor import Executor
from runtime._registry import EndpointTool, PythonTool, Registry, Tool, ToolOptions
from runtime._results import ToolResult
from runtime._schema import derive_spec
from runtime._schema.formats import lower
from runtime._shared_scopes import call_scopes
from runtime._system_tools import SYSTEM_TOOLS, system_answer
from runtime._unit_of_work import UnitOfWork, new_id
from runtime.store import LOCK_TIMEOUT, open_store
from sandbox.common.errors import (
    InvalidArguments,
    InvalidSource,
    PolicyViolation,
    ToolpenError,
)
from sandbox.common.limits import Limits
from sandbox.common.walls import WALLS_MODES, WallsMode
from sandbox.process.pool import DEFAULT_TOOL_IMAGES, WorkerPool

if TYPE_CHECKING:
    from runtime.store import Store

__all__ = ["Runtime", "ToolResult", "TurnOptions", "WorkerStatus"]

AGENT_CALLBACKS = ("before_agent", "after_agent", "before_model", "after_model")
"""Callback kinds a host runs itself with ``run_callbacks``; tool callbacks run around every call."""


class TurnOptions(TypedDict, total=False):
    """The options of ``run_turn`` and ``call_many`` (each as ``call``'s, where it has it)."""

    mode: ToolExecutionMode | None
    """How the calls run together: ``PARALLEL`` or ``SEQUENTIAL``; None: the runtime's."""
    context: dict[str, Any] | None
    """The context every call shares (each has its own ``function_call_id``)."""
    session_id: str | None
    user_id: str | None
    lock_wait: float
    """Seconds each call may wait for the session's lock (60 s by default, then ``busy``)."""


@dataclass(frozen=True)
class WorkerStatus:
    """A runtime's sandbox workers at one moment (``Runtime.workers``)."""

    size: int
    """Workers kept forked and ready."""
    in_use: int
    """Calls running in, or waiting for, a worker."""
    alive: bool
    """The pool can fork workers (its zygote runs)."""


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
        enable_fakes: bool = False,
        walls: WallsMode = "all",
        allow_weak_isolation: bool = False,
        initial_state: dict[str, Any] | None = None,
        tool_execution_mode: ToolExecutionMode = "SEQUENTIAL",
        tool_environment: dict[str, str] | None = None,
        agents: Collection[str] | None = None,
        tool_images: int = DEFAULT_TOOL_IMAGES,
    ) -> None:
        """Raises ``IsolationUnavailable`` where the machine lacks a wall of the process sandbox,
        unless ``allow_weak_isolation`` (then it warns once per process and runs without it).

        ``initial_state`` is every new session's state (an app's declared defaults), under the
        ``state`` a call's context gives. ``tool_execution_mode`` is how several calls of one model
        response run (``call_many``, turns, the protocol adapters): an app's runtime has the app's
        (CES's default is ``PARALLEL``); ``SEQUENTIAL`` by default, so that a host's calls see
        each other's changes unless it asks otherwise. ``tool_environment`` is what tools read in
        ``os.environ``/``os.getenv`` (strings only; none by default), each call from a fresh copy.
        ``agents``: the agents ``transfer_to_agent`` may name (an app's; None: any name).
        ``tool_images``: how many tools at most keep a tool image, a process whose module-level
        code has run once and that forks the tool's workers (docs/performance.md, "Tool images";
        0: none, every call runs the whole source)."""
        if walls not in WALLS_MODES:
            raise InvalidArguments(f"walls is one of {', '.join(WALLS_MODES)}, not {walls!r}")
        self.walls = walls
        self.agents = frozenset(agents) if agents is not None else None
        self.tool_execution_mode = parse_tool_execution_mode(tool_execution_mode)
        self.pool = WorkerPool(
            size=pool_size,
            reuse=reuse_workers,
            allow_weak_isolation=allow_weak_isolation,
            tool_images=tool_images,
        )
        self.limits = limits or Limits()
        self.store = open_store(store) if isinstance(store, str) else store
        # requests and urllib3: loaded with the first Runtime, not on import
        from runtime._http import HttpBroker

        self.broker = HttpBroker(egress or EgressPolicy())
        self.registry = Registry()
        self.hooks: dict[str, list[Hook]] = {}
        self.executor = Executor(
            self.registry,
            self.pool,
            self.broker,
            self.limits,
            self.hooks,
            walls,
            _checked_environment(tool_environment),
        )
        self.app_name = app_name
        self.user_id = user_id
        self.enable_fakes = enable_fakes
        self.unit_of_work = UnitOfWork(
            self.store,
            self.broker,
            app_name=app_name,
            agent_name=agent_name,
            max_depth=max_depth,
            max_calls=max_calls,
            initial_state=initial_state,
        )

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
        execution_type: ExecutionType = "SYNCHRONOUS",
        timeout: float | None = None,
    ) -> Tool:
        """Register a Python tool from its source text; raises ``InvalidSource`` / ``PolicyViolation``.

        ``execution_type`` and ``timeout`` (seconds, the tool's wall time) are a CES tool's
        (``runtime/_execution.py``); without a timeout the tool runs under its ``limits``, else the runtime's."""
        spec = derive_spec(source, name)
        if spec.errors:
            first = spec.errors[0]
            raise InvalidSource(first.message, line=first.line, col=first.col)
        self._compile(source)
        options = ToolOptions(
            defer_loading=defer_loading,
            idempotent=idempotent,
            read_only=read_only,
            execution_type=parse_execution_type(execution_type),
            timeout=_checked_timeout(timeout),
        )
        tool = PythonTool(name=spec.name, spec=spec, options=options, source=source, limits=limits)
        added = self.registry.add(tool, replace=replace)
        self.pool.start_image(self.executor.image_job(tool))  # its module runs now, off the caller's path
        return added

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
        execution_type: ExecutionType = "SYNCHRONOUS",
        timeout: float | None = None,
    ) -> list[Tool]:
        """Register one tool per operation of an OpenAPI 3.x document (a path or a dict).

        ``execution_type`` and ``timeout`` apply to every operation, as a CES toolset's do."""
        from runtime._openapi_toolset import OpenApiToolset

        if isinstance(spec, dict):
            endpoints = OpenApiToolset.from_dict(toolset, spec, server=server, auth=auth)
        else:
            endpoints = OpenApiToolset.from_file(toolset, spec, server=server, auth=auth)
        options = ToolOptions(
            execution_type=parse_execution_type(execution_type), timeout=_checked_timeout(timeout)
        )
        return [
            self.registry.add(
                EndpointTool(name=endpoint.name, spec=endpoint.spec, options=options, operation=endpoint),
                replace=replace,
            )
            for endpoint in endpoints.tools
        ]

    def add_callback(self, source: str) -> list[Hook]:
        """Register the callbacks a source defines; each kind runs in registration order."""
        hooks = parse_hooks(source)
        if any(hook.kind == "fake" for hook in hooks):
            raise InvalidSource("this source defines fakes: register it with add_fakes")
        return self._add_hooks(source, hooks)

    def clear_callbacks(self) -> None:
        """Unregister every callback (fakes stay): an app's runtime does on an agent transfer,
        before it registers the new agent's. Calls running keep the callbacks they started with."""
        for kind in list(self.hooks):
            if kind != "fake":
                self.hooks[kind] = []

    def add_fakes(self, source: str, *, tool: str | None = None) -> list[Hook]:
        """Register fakes (``fake_tool_call`` / ``fake_<tool>``); only in a runtime made with ``enable_fakes``.

        With ``tool`` (a CES tool's ``toolFakeConfig``), ``fake_tool_call`` stands in for that tool only.
        """
        if not self.enable_fakes:
            raise PolicyViolation("fakes are for local testing: create the Runtime with enable_fakes=True")
        hooks = parse_hooks(source)
        if any(hook.kind != "fake" for hook in hooks):
            raise InvalidSource("this source defines callbacks: register it with add_callback")
        if tool is not None:
            if any(hook.target not in (None, tool) for hook in hooks):
                raise InvalidSource(f"the fakes of tool {tool!r} may only fake {tool!r}")
            hooks = [replace(hook, target=tool) for hook in hooks]
        return self._add_hooks(source, hooks)

    def _add_hooks(self, source: str, hooks: list[Hook]) -> list[Hook]:
        self._compile(source)
        for hook in hooks:
            self.hooks.setdefault(hook.kind, []).append(hook)
        return hooks

    def _compile(self, source: str) -> None:
        """Refuse a source the walls would refuse at run time, then warm the pool with it."""
        # the compilers (RestrictedPython, and pydantic for annotations) load with the first
        # source registered, not with `import runtime`
        from sandbox.language.compiler import compile_tool
        from sandbox.process.plain import compile_plain

        if self.walls == "process":
            compile_plain(source)
        else:
            compile_tool(source)
        self.pool.warm(source, self.walls)

    def get_tool(self, name: str) -> Tool:
        """The registered tool ``name``; raises ``NotFound``."""
        return self.registry.get(name)

    def remove_tool(self, name: str) -> bool:
        """Unregister tool ``name``; False when there was none. Calls running go on."""
        return self.registry.remove(name)

    def callbacks(self) -> dict[str, list[Hook]]:
        """The registered callbacks and fakes by kind (``before_agent``, ``fake``, ...), in
        registration order; a copy."""
        return {kind: list(hooks) for kind, hooks in self.hooks.items() if hooks}

    @property
    def workers(self) -> WorkerStatus:
        """The sandbox workers now: how many are kept ready, how many calls use them, whether
        new ones can be forked."""
        return WorkerStatus(self.pool.size, self.pool.in_use, self.pool.alive)

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
        lock_wait: float = LOCK_TIMEOUT,
    ) -> ToolResult:
        """Run tool ``name`` with ``args``; never raises for a fault of the tool or its input.

        With a session, the call waits up to ``lock_wait`` seconds for the session's lock (then
        its error is ``busy`` and nothing is stored); its wall time starts once it holds it."""
        plan = self._plan(name, args, context, session_id, call_id, user_id, lock_wait)
        return plan if isinstance(plan, ToolResult) else self.unit_of_work.run(plan)

    def start(
        self,
        name: str,
        args: dict[str, Any] | None = None,
        *,
        context: dict[str, Any] | None = None,
        session_id: str | None = None,
        call_id: str | None = None,
        user_id: str | None = None,
        lock_wait: float = LOCK_TIMEOUT,
    ) -> Future[ToolResult]:
        """Start tool ``name`` and return at once, as CES runs an ``ASYNCHRONOUS`` tool.

        The call begins now (its snapshot is the session as it is now) and runs in a thread
        without holding the session, so other calls of the session go on meanwhile; it commits
        when it ends, onto the state the session has then. The future's result is its
        ``ToolResult``; ``close()`` waits for calls still running."""
        plan = self._plan(name, args, context, session_id, call_id, user_id, lock_wait)
        if isinstance(plan, ToolResult):
            future: Future[ToolResult] = Future()
            future.set_result(plan)
            return future
        return self.unit_of_work.start(plan)

    def run_turn(self, calls: Sequence[ToolCall], **options: Unpack[TurnOptions]) -> list[TurnCall]:
        """Run the tool calls one model turn selected, as CES runs them (``runtime/_execution.py``):
        the one turn runner of turn scripts, the protocol loops (Chat Completions, the Agents API,
        MCP) and apps. ``options`` are ``TurnOptions``.

        An ``ASYNCHRONOUS`` tool starts (``start``) and answers at once ``{"status": "pending"}``,
        its ``TurnCall.later`` the future of its result. The others run by ``mode`` (else the
        runtime's ``tool_execution_mode``): ``PARALLEL`` at once from the state the session had
        before them (the asynchronous ones start first, from that same state), committed in the
        given order; ``SEQUENTIAL`` one after the other, each seeing the state the previous one
        left. Answers in the calls' order; a call without a call id gets one of its own."""
        return self._turn(calls, TurnOptions(**options), start_asynchronous=True)

    def call_many(self, calls: Sequence[ToolCall], **options: Unpack[TurnOptions]) -> list[ToolResult]:
        """``run_turn``, waiting for every result: an ``ASYNCHRONOUS`` tool runs like the others
        (as ``call`` runs it).

        ``PARALLEL``: they run at once, each from the state the session had before them (none
        sees another's changes), and commit in the given order, so for a key several of them
        set the last one's value is kept. ``SEQUENTIAL``: one after the other, each seeing the
        state the previous one left. Results in the given order; each call has its own call id."""
        turn = self._turn(calls, TurnOptions(**options), start_asynchronous=False)
        return [answered.result for answered in turn]

    def _turn(
        self, calls: Sequence[ToolCall], options: TurnOptions, *, start_asynchronous: bool
    ) -> list[TurnCall]:
        """The turn runner: ``run_turn``, or with ``start_asynchronous=False`` ``call_many``."""
        mode = parse_tool_execution_mode(options.get("mode") or self.tool_execution_mode)
        context = options.get("context") or {}
        shared = {key: value for key, value in context.items() if key != "function_call_id"}
        session_id, user_id = options.get("session_id"), options.get("user_id")
        lock_wait = options.get("lock_wait", LOCK_TIMEOUT)
        calls = [call if call.call_id else replace(call, call_id=new_id("call")) for call in calls]
        answered: dict[int, TurnCall] = {}
        together: list[int] = []
        for index, call in enumerate(calls):
            asynchronous = start_asynchronous and self._is_asynchronous(call.tool)
            if mode == "PARALLEL" and not asynchronous:
                together.append(index)
                continue
            run = self.start if asynchronous else self.call
            done = run(
                call.tool,
                call.args,
                context=shared,
                session_id=session_id,
                call_id=call.call_id,
                user_id=user_id,
                lock_wait=lock_wait,
            )
            answered[index] = _answered(call, done, session_id)
        plans = [
            self._plan(calls[i].tool, calls[i].args, shared, session_id, calls[i].call_id, user_id, lock_wait)
            for i in together
        ]
        ran = iter(self.unit_of_work.run_together([plan for plan in plans if isinstance(plan, CallPlan)]))
        for index, plan in zip(together, plans, strict=True):
            answered[index] = TurnCall(calls[index], plan if isinstance(plan, ToolResult) else next(ran))
        return [answered[index] for index in range(len(calls))]

    def _is_asynchronous(self, name: str) -> bool:
        tool = self.registry.find(name)
        return tool is not None and tool.options.execution_type == "ASYNCHRONOUS"

    def _plan(
        self,
        name: str,
        args: dict[str, Any] | None,
        context: dict[str, Any] | None,
        session_id: str | None,
        call_id: str | None,
        user_id: str | None,
        lock_wait: float,
    ) -> CallPlan | ToolResult:
        """The plan of one call, or its failed result (an unknown tool, invalid arguments)."""
        context = dict(context or {})
        call_id = call_id or context.get("function_call_id") or new_id("call")
        if name in SYSTEM_TOOLS and self.registry.find(name) is None:  # CES carries it out itself
            state = dict(context.get("state") or {})
            try:
                output = system_answer(name, args or {}, self.agents)
            except ToolpenError as error:
                return ToolResult(False, error=error, call_id=call_id, session_id=session_id, state=state)
            return ToolResult(True, output, call_id=call_id, session_id=session_id, state=state)
        try:
            tool = self.registry.get(name)
            args = tool.arguments({} if args is None else args)
        except ToolpenError as error:
            state = dict(context.get("state") or {})
            return ToolResult(False, error=error, call_id=call_id, session_id=session_id, state=state)

        def steps(snapshot: dict[str, Any], invocation: Invocation) -> Outcome:
            return self.executor.run(tool, args, snapshot, invocation)

        return CallPlan(
            name,
            args,
            steps,
            context,
            call_id,
            session_id,
            user_id or self.user_id,
            idempotent=tool.options.idempotent,
            wall_time=self.executor.limits_for(tool).wall_time,
            # read from the code only for a session call: an ephemeral one locks and stores nothing
            shared_scopes=frozenset()
            if session_id is None
            else call_scopes(self.registry, self.hooks, tool=tool),
            lock_wait=lock_wait,
        )

    async def acall(self, name: str, args: dict[str, Any] | None = None, **kwargs: Any) -> ToolResult:
        """``call`` for asyncio: the same implementation, run in a worker thread."""
        import asyncio

        return await asyncio.to_thread(self.call, name, args, **kwargs)

    def run_callbacks(
        self,
        kind: str,
        *,
        context: dict[str, Any] | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        llm_request: dict[str, Any] | None = None,
        llm_response: dict[str, Any] | None = None,
    ) -> ToolResult:
        """Run the ``before_agent`` / ``after_agent`` / ``before_model`` / ``after_model`` callbacks.

        ``output`` is the replacement they chose (a dict), or None to carry on unchanged: as in
        CES, callbacks run in registration order and the first that returns something ends the
        chain. State changes commit like a tool's.
        """
        if kind not in AGENT_CALLBACKS:
            raise InvalidArguments(f"run_callbacks takes one of {', '.join(AGENT_CALLBACKS)}, not {kind!r}")

        def steps(snapshot: dict[str, Any], invocation: Invocation) -> Outcome:
            return self.executor.run_agent_hooks(kind, llm_request, llm_response, snapshot, invocation)

        plan = CallPlan(
            f"{kind}_callback",
            {},
            steps,
            dict(context or {}),
            # always an id of its own: a host passing a tool call's context must not make the
            # tool call later replay this callback run's stored result
            new_id(kind),
            session_id,
            user_id or self.user_id,
            idempotent=False,
            wall_time=self.limits.wall_time,
            tool_events=False,
            shared_scopes=call_scopes(self.registry, self.hooks, kind=kind),
        )
        return self.unit_of_work.run(plan)

    # -- lifetime -------------------------------------------------------------------------

    def close(self, *, close_store: bool = True) -> None:
        """Wait for the calls ``start`` left running (up to their wall time), stop the workers and
        close the store (unless ``close_store=False``: a store shared with other runtimes)."""
        self.unit_of_work.wait_detached(self._longest_wall_time())
        self.pool.close()
        if close_store:
            self.store.close()

    def _longest_wall_time(self) -> float:
        return max(
            [self.executor.limits_for(tool).wall_time for tool in self.registry] + [self.limits.wall_time]
        )

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _answered(call: ToolCall, done: ToolResult | Future[ToolResult], session_id: str | None) -> TurnCall:
    """A call's result, or a started call's pending answer and its future."""
    if isinstance(done, ToolResult):
        return TurnCall(call, done)
    pending = ToolResult(True, dict(PENDING_OUTPUT), call_id=call.call_id or "", session_id=session_id)
    return TurnCall(call, pending, done)


def _checked_timeout(timeout: float | None) -> float | None:
    if timeout is not None and not timeout > 0:
        raise InvalidArguments(f"a tool's timeout is a positive number of seconds, not {timeout!r}")
    return timeout


def _checked_environment(environment: dict[str, str] | None) -> dict[str, str] | None:
    """The tools' ``os.environ``: a mapping of strings to strings, as CPython's."""
    if environment is None:
        return None
    if not isinstance(environment, dict) or not all(
        type(key) is str and type(value) is str and key and "=" not in key and "\0" not in key + value
        for key, value in environment.items()
    ):
        raise InvalidArguments(
            "tool_environment maps names (no '=' or NUL) to strings, as os.environ does: "
            f"{str(environment)[:200]!r} is not such a mapping"
        )
    return dict(environment)
