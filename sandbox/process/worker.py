"""The worker: isolates itself, then runs tool calls sent by the parent as JSON frames.

One call: lower the rlimits to the call's limits, compile the source (cached by the zygote when
the tool was warmed), build fresh restricted globals with the CES runtime's names
(``sandbox.bridges.ces_context``), call the entry function, and answer with a ``done`` frame. Every failure
becomes a structured error whose line is the tool's own, never a host path.

The result must be JSON: dicts, lists, tuples (sent as lists), strings, numbers, booleans and
None as they are; the CES classes (``Part``, ``LlmResponse``, ...) as their JSON shape without
None fields; other pydantic models, dataclasses and enums as pydantic serializes them
(``pydantic_core.to_jsonable_python``: by alias, nested values too); sets as sorted lists;
dates and times as ISO 8601 strings; an instance of a class of the tool's own with annotations
as its annotated public attributes (MCP's structured output). Anything else is a ``tool_error``.

The entry is called as the frameworks call it (``sandbox.bridges.framework_call``): model-typed
arguments validated, ``Field`` defaults filled, the parameters the job names as injected filled.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import inspect
import json
import linecache
import os
import socket
import sys
import traceback
import types
from collections.abc import Coroutine
from types import CodeType, TracebackType
from typing import Any, TypeVar

from sandbox.bridges.ces_context import (
    HookCall,
    ToolContext,
    call_globals,
    ces_globals,
    is_ces_model,
    settle,
    uses_model_classes,
)
from sandbox.bridges.framework_call import (
    framework_function,
    injected_values,
    not_a_function,
    typed_arguments,
)
from sandbox.bridges.proxies import Context, RpcClient, state_delta, state_size_after
from sandbox.common import errors
from sandbox.common.errors import (
    InvalidSource,
    MemoryExceeded,
    OutputTooLarge,
    RecursionLimit,
    ToolFailed,
    ToolpenError,
    error_from_dict,
)
from sandbox.common.limits import Limits, MiB
from sandbox.common.state_delta import StateDelta, check_value_sizes, state_too_large
from sandbox.language.arming import arm_checks, end_import_exemption
from sandbox.language.compiler import TOOL_FILENAME, compile_tool
from sandbox.language.namespace import OutputCapture, build_globals
from sandbox.language.rules import PLAIN_MODULE_NAME, TOOL_MODULE_NAME
from sandbox.messages import Call, Done, Rpc, StartRpc, WallsQuery, decode_job
from sandbox.process.isolation import Walls, ZygoteWalls, apply_call_limits, isolate_worker, worker_walls
from sandbox.process.plain import compile_plain, plain_globals
from sandbox.process.tool_image import ToolImage, bind
from sandbox.wire import decode, encode, frame, recv_frame, send_frame

WARM_UP_SOURCE = """\
from dataclasses import asdict, dataclass


@dataclass
class Item:
    name: str
    count: int = 0


def warm_up(x: int) -> dict:
    item = Item(name="x", count=x)
    context.state["key"].append(item.count)
    print(item)
    return {"item": asdict(item), "x": [x, 1.5, None, True]}
"""
WARM_UP_JOB = {"source": WARM_UP_SOURCE, "entry": "warm_up", "args": {"x": 1}}
PREPARATION = Call(
    source="def prepare(value: int) -> int:\n    return value\n",
    entry="prepare",
    args={"value": 1},
    context={"state": {}},
    # as the host sends them: the time left of the call, whose 16 or 17 digits the JSON parser
    # reads with big-number arithmetic (a page of libpython's data this preparation then copied)
    limits=Limits().to_dict() | {"wall_time": 9.999938478998956, "cpu_time": 9.999938478998956},
).encode()
"""The no-op job an idle worker takes through the call's path before its job arrives (its tool is
compiled by the zygote), as the host's ``call`` message."""
PREPARATION_FRAME = encode(PREPARATION)
"""The no-op job as the host sends a job, encoded once, in the zygote: the worker decodes it as it
will decode its job (a worker never encodes a job)."""
PREPARATION_FRAMES = {"all": PREPARATION_FRAME, "process": encode(PREPARATION | {"walls": "process"})}
"""The no-op job for each walls mode: a worker takes the path its pool's calls take (plain CPython's
under ``walls="process"``, whose pages the language wall's path leaves untouched)."""


def serve(
    sock: socket.socket,
    *,
    reuse: bool,
    zygote: ZygoteWalls,
    image: ToolImage | None = None,
    walls: str = "all",
) -> None:
    """Isolate this process, then answer jobs until the parent hangs up (one call unless ``reuse``);
    ``image``: this worker was forked from that tool's image, whose module has run already;
    ``walls``: the mode its call likely runs in (what the idle worker prepares)."""
    seccomp, base_vm = isolate_worker(sock.fileno(), zygote)
    end_import_exemption()
    rpc = RpcClient(sock)
    if not _job_waiting(sock):  # handed its job at once (a busy pool): the job itself touches those pages
        prepare(rpc, base_vm, reuse=reuse, walls=walls)
    while (message := recv_frame(sock)) is not None:
        job = decode_job(message)
        if isinstance(job, WallsQuery):
            send_frame(sock, _walls_report(worker_walls(zygote, sock.fileno(), seccomp)).encode())
            continue
        # the done is encoded, and its dict freed, before it is sent: a finalizer of the tool's that
        # this frees runs within the call, while the host still waits for the done
        sock.sendall(frame(run_call(job, rpc, base_vm=base_vm, reuse=reuse, image=image).encode()))
        if not reuse:
            # at once: returning would free this function's objects (the job's arguments, which
            # the tool may have filled), and a finalizer would run tool code after the done; the
            # pool does not kill a single-use worker under the language wall, it lets it exit
            os._exit(0)


def run_call(
    job: Call,
    rpc: RpcClient,
    *,
    base_vm: int,
    reuse: bool,
    preparing: bool = False,
    image: ToolImage | None = None,
) -> Done:
    """Run one ``call`` job and return its ``done`` (sent once every call it started is answered).

    ``preparing``: the idle worker's no-op job, which sets only soft rlimits (the job's own lower the
    hard ones). ``image``: the tool image this worker was forked from (used if the job is its tool's).
    """
    limits = Limits(**(job.limits or {}))
    output = OutputCapture(limits.output)
    try:
        apply_call_limits(limits, base_vm, reuse=reuse or preparing)
        bounded = _bounded(rpc, limits)
        context = ToolContext(job.context or {}, bounded)
        written_back: dict[str, Any] = {}
        start = _bounded(rpc.start, limits)
        result = _call_entry(
            job, context, bounded, output, written_back, start, single_use=not reuse, image=image
        )
        output_text = _result_text(result, limits.result_size)
        output_value = json.loads(output_text)
        delta = _checked_delta(context, limits)
        hook_values = json.loads(_result_text(written_back, limits.result_size)) if written_back else {}
        done = Done(
            output_value,
            None,
            StateDelta(delta["set"], delta["deleted"]),
            wire_text(output.text),
            hook_values,
        )
    except BaseException as exc:  # the tool's failure, whatever it is, becomes the call's error
        # the tool's frames (and what a memory bomb holds) freed first; a fresh error, holding
        # nothing of the tool's: what the tool raised is freed here, as the call ends
        done = Done(error=failure_of(exc, limits), logs=wire_text(output.text))
    rpc.drain()  # a call the tool started and left behind is answered before its done
    return done


def prepare(rpc: RpcClient, base_vm: int, *, reuse: bool, walls: str = "all") -> None:
    """Before the job arrives: take the path of a call once, with a no-op job, so that the call finds
    the pages it touches (the frames' JSON both ways, rlimits, globals, the result) already copied
    from the zygote's.

    Only soft rlimits are set here (at the default limits); the job's own limits replace them
    and, for a single-use worker, lower the hard ones, before its tool runs.
    """
    global prepared_for
    prepared_for = walls
    job = decode_job(decode(PREPARATION_FRAMES[walls]))
    assert isinstance(job, Call)
    # the no-op calls nothing, so no frame is sent
    encode(run_call(job, rpc, base_vm=base_vm, reuse=reuse, preparing=True).encode())


prepared_for: str | None = None
"""The walls mode this worker's idle preparation took the path of (None: its job was waiting); for
tests and diagnostics."""


def _job_waiting(sock: socket.socket) -> bool:
    """Whether the worker's first job is already waiting on its socket (the end of the socket is not a job)."""
    try:
        return bool(sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
    except BlockingIOError:
        return False


def run_warm_up(job: dict[str, Any] = WARM_UP_JOB) -> None:
    """Run a warm-up tool once, so that the pages a call touches are copied before the call."""
    call = Call.from_dict(job)
    context = ToolContext(call.context or {"state": {"key": [1]}})
    result = _call_entry(call, context, _no_rpc, OutputCapture(0))
    _result_text(result, 1024 * MiB)
    state_delta(context.state)


def _no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise ToolFailed("no host to call during a warm-up run")


def compile_for(source: str, walls: object) -> CodeType:
    """The code object of a tool: plain CPython under ``walls="process"``, restricted under anything else."""
    return compile_plain(source) if walls == "process" else compile_tool(source, filename=TOOL_FILENAME)


def _call_entry(
    job: Call,
    context: ToolContext,
    rpc: Rpc,
    output: OutputCapture,
    written_back: dict[str, Any] | None = None,
    start: StartRpc | None = None,
    *,
    single_use: bool = False,
    image: ToolImage | None = None,
) -> Any:
    """Run the job's entry; for a callback, what it changed in its writable arguments joins ``written_back``.

    ``start`` sends the calls ``async_tools`` starts (None: each runs when started); those whose
    result the code never asked for are collected before the result is returned. ``single_use``:
    this process exits after the job (``namespace.build_globals``). ``image``: the tool image
    this process was forked from; a job of its tool runs its entry in the image's module, whose
    top-level code has run (``tool_image.bind``)."""
    walls = job.walls
    arm_checks(walls != "process")  # the pydantic, Enum and annotation hooks: the language wall's
    if image is not None and image.source == job.source and job.hook is None and walls != "process":
        injected = call_globals(context, rpc, start)
        namespace = bind(image, injected, output, job)
        return _run_entry(job, namespace, context, injected, written_back)
    code = compile_for(job.source, walls)
    show_source(job.source)
    model_classes = job.hook is not None or uses_model_classes(job.source)
    injected = ces_globals(context, rpc, start, model_classes=model_classes)
    if walls == "process":
        namespace = plain_globals(
            injected=injected, output=output, entry=job.entry, environment=job.environment
        )
    else:
        limits = Limits(**(job.limits or {}))
        namespace = build_globals(
            injected=injected,
            output=output,
            single_use=single_use,
            entry=job.entry,
            limits=limits,
            environment=job.environment,
        )
    loop = sys.modules.get("sandbox.common.event_loop")
    if loop is not None:  # the asyncio view is loaded: what asyncio creates is toolpen's event loop
        loop.install()
    exec(code, namespace)
    return _run_entry(job, namespace, context, injected, written_back)


def _run_entry(
    job: Call,
    namespace: dict[str, Any],
    context: ToolContext,
    injected: dict[str, Any],
    written_back: dict[str, Any] | None,
) -> Any:
    """Call the job's entry function of the module ``namespace`` (its top-level code has run)."""
    entry = job.entry
    function = framework_function(namespace.get(entry))
    if not callable(function):
        raise InvalidSource(not_a_function(entry, function))
    hook = job.hook
    call = HookCall(hook, context) if hook is not None else None
    if call is not None:
        result = function(*call.arguments)
    else:
        injected_names = job.injected or {}
        args = typed_arguments(function, job.args or {}, injected_names)
        positional, keywords = bind_arguments(function, args)
        keywords.update(injected_values(injected_names, function, context))
        result = function(*positional, **keywords)
    if inspect.iscoroutine(result):
        result = run_coroutine(result)
    settle(injected["async_tools"])
    if call is not None and written_back is not None:
        written_back.update(call.changed())
    return result


def show_source(source: str) -> None:
    """Let tracebacks the tool formats (``logger.exception``, ``stack_info``) show its source lines, as CPython's do."""
    linecache.cache[TOOL_FILENAME] = (len(source), None, source.splitlines(keepends=True), TOOL_FILENAME)


_STARRED = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS

HOST_ERRORS = frozenset(
    kind for kind in vars(errors).values() if isinstance(kind, type) and issubclass(kind, ToolpenError)
)
"""toolpen's own error classes: only their instances report their kind (``_error_of``)."""


def bind_arguments(function: Any, args: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments for ``function`` from the call's JSON object.

    As the OpenAI Agents SDK does: ``*name`` takes the list under ``name`` (and the parameters
    before it are passed by position), ``**name`` the object under ``name``.
    """
    code = getattr(function, "__code__", None)
    plain = type(function) is types.FunctionType and "__wrapped__" not in vars(function)
    if plain and code is not None and not code.co_flags & _STARRED:
        return [], args
    parameters = inspect.signature(function).parameters.values()
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    before_star = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    for parameter in parameters:
        if parameter.kind is parameter.VAR_POSITIONAL:
            positional.extend(args.get(parameter.name) or [])
            before_star = False
        elif parameter.kind is parameter.VAR_KEYWORD:
            keywords.update(args.get(parameter.name) or {})
        elif before_star and parameter.kind is not parameter.KEYWORD_ONLY:
            if parameter.name not in args and parameter.default is parameter.empty:
                raise TypeError(f"missing required argument {parameter.name!r}")
            positional.append(args.get(parameter.name, parameter.default))
        elif parameter.name in args:
            keywords[parameter.name] = args[parameter.name]
    return positional, keywords


def run_coroutine(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run an ``async def`` tool to its end.

    With ``asyncio`` loaded (the tool's source imports it, so the zygote did), as ``asyncio.run``
    does, on toolpen's event loop (``sandbox.common.event_loop``: CPython's, without I/O). Without
    it nothing the tool reaches waits on an event loop, so what it awaits is another coroutine and
    never suspends; one that does is refused rather than left waiting.
    """
    if "asyncio" in sys.modules:
        from sandbox.common.event_loop import run  # noqa: PLC0415 (asyncio only where a tool uses it)

        return run(coroutine)
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value
    coroutine.close()
    raise ToolFailed(
        "the tool awaited something that waits for an event loop; only async def functions can be awaited"
    )


def _checked_delta(context: Context, limits: Limits) -> dict[str, Any]:
    """The state delta, unless a value it sets is over ``limits.state_value_size`` bytes of JSON
    or the state it leaves over ``limits.state_size``.

    Without this a tool could hand the host (which parses, stores and ships it to every later
    call of the session) tens of megabytes of state per call. The size is that of the state the
    delta's own copies leave, from the snapshot's size and the changed keys' (a value of the
    tool's may serialize differently each time it is read; the host checks again).
    """
    delta = state_delta(context.state)
    check_value_sizes(delta["set"], limits.state_value_size)
    if delta["set"] or delta["deleted"]:
        size = state_size_after(context.state, delta)
        if size > limits.state_size:
            raise state_too_large(size, limits.state_size, delta["set"])
    return delta


Send = TypeVar("Send", Rpc, StartRpc)


def _bounded(rpc: Send, limits: Limits) -> Send:
    """``rpc`` (or ``start``) refusing params over ``result_size + state_size`` bytes (nested calls carry the state)."""
    limit = limits.result_size + limits.state_size

    def bounded(target: str, method: str, params: dict[str, Any]) -> Any:
        size = len(json.dumps(params, ensure_ascii=False, default=str).encode())
        if size > limit:
            raise OutputTooLarge(f"a call to the host of {size} bytes is over the limit of {limit}")
        return rpc(target, method, params)

    return bounded


def _result_text(result: Any, limit: int) -> str:
    try:
        text = _RESULT_ENCODER.encode(result)
    except (TypeError, ValueError) as exc:
        raise ToolFailed(f"the return value is not JSON: {exc}") from None
    size = len(text.encode())
    if size > limit:
        raise OutputTooLarge(f"the result is {size} bytes, over the limit of {limit}")
    return text


def jsonable(value: object) -> Any:
    """The JSON form of what a result may hold besides JSON types (the module docstring lists them)."""
    if is_ces_model(value):
        return value.to_json()
    core = sys.modules.get("pydantic_core")  # not loaded: no model to meet
    if core is not None and (
        _is_model(value) or dataclasses.is_dataclass(value) or isinstance(value, enum.Enum)
    ):
        # as pydantic serializes them (MCP and ADK do so): by alias, nested dataclasses and datetimes too
        return core.to_jsonable_python(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, set | frozenset):
        try:
            return sorted(value)
        except TypeError:
            return list(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    annotated = _annotated_attributes(value)
    if annotated is not None:
        return annotated
    raise TypeError(f"a {type(value).__name__} is not JSON")


def _annotated_attributes(value: object) -> dict[str, Any] | None:
    """An instance of the tool's own class with annotations: its annotated public attributes, as MCP's
    structured output gives them (``name: str`` -> ``value.name``); None for any other value."""
    kind = type(value)
    if vars(kind).get("__module__") not in (TOOL_MODULE_NAME, PLAIN_MODULE_NAME):
        return None
    hints = vars(kind).get("__annotations__")
    if type(hints) is not dict or not hints:
        return None
    return {key: getattr(value, key) for key in hints if type(key) is str and not key.startswith("_")}


def _is_model(value: object) -> bool:
    pydantic = sys.modules.get("pydantic")
    return pydantic is not None and isinstance(value, pydantic.BaseModel)


_RESULT_ENCODER = json.JSONEncoder(default=jsonable, allow_nan=False, ensure_ascii=False)
"""``json.dumps`` of a result, built once (``json.dumps`` with options builds an encoder per call)."""


def failure_of(exc: BaseException, limits: Limits) -> ToolpenError:
    """What a call reports for ``exc`` raised by tool code (a tool image's module code too): located at the tool's line."""
    # its traceback through BaseException's own slot: an exception class of the tool's may define
    # __setattr__ (or, under walls="process", __getattribute__) and raise from it here
    line = _tool_line(_TRACEBACK.__get__(exc))
    _TRACEBACK.__set__(exc, None)
    return _error_dict(exc, line, limits)


def _tool_line(tb: TracebackType | None) -> int | None:
    """The line of the innermost tool frame in a traceback."""
    line = None
    for tb_frame, lineno in traceback.walk_tb(tb):
        if tb_frame.f_code.co_filename == TOOL_FILENAME:
            line = lineno
    return line


def _buffer_refusal() -> BaseException | None:
    """What a buffer gate refused (``sandbox/language/bufferless.py``, loaded with numpy's view), if anything."""
    gate = sys.modules.get("sandbox.language.bufferless")
    return None if gate is None else gate.refusal()


_TRACEBACK = BaseException.__dict__["__traceback__"]
"""An exception's traceback slot, read and cleared without the exception's own class (``run_call``)."""

MESSAGE_LIMIT = 8192
"""Characters of an error message sent to the host (the tool chooses the message: it may be huge)."""


def wire_text(text: str) -> str:
    """``text`` as the wire can carry it: a lone surrogate written as its escape (``\\ud800``)."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode()
    return text


def _error_dict(exc: BaseException, line: int | None, limits: Limits) -> ToolpenError:
    """The call's error, whatever ``exc`` holds: its message readable, on the wire, and bounded.

    What the tool raised may have a ``__str__`` that raises or returns no string, a message with
    lone surrogates, or megabytes of text; each becomes a ``tool_error`` saying so, never a crash
    of the worker's error path (which the host would see as ``worker_crashed``). A message that
    cannot be read for want of memory (a tool that filled its memory, then raised) is ``memory``.
    """
    try:
        error = _error_of(exc, line, limits)
        data = error.to_dict()
    except MemoryError:  # reading the message needed memory the tool had used up: the call's end is memory
        data = _error_of(MemoryError(), line, limits).to_dict()
    except (
        BaseException
    ) as failure:  # the tool's own __str__ failed (a BaseException subclass of its own too)
        data = ToolFailed(
            f"{_safe_class_name(exc)}: (its message could not be read: {_safe_class_name(failure)})"
            + (f" (line {line})" if line is not None else ""),
            line=line,
        ).to_dict()
    message = data.get("message")
    if type(message) is not str:
        message = "(no readable message)"
    if len(message) > MESSAGE_LIMIT:
        message = message[:MESSAGE_LIMIT] + f" ... [message truncated at {MESSAGE_LIMIT} characters]"
    data["message"] = wire_text(message)
    return error_from_dict(data)


def _safe_class_name(exc: BaseException) -> str:
    name = type.__dict__["__name__"].__get__(type(exc))
    return wire_text(name) if type(name) is str else "an exception"


def _error_of(exc: BaseException, line: int | None, limits: Limits) -> ToolpenError:
    if isinstance(exc, SystemError):  # a C function that failed without saying why: a buffer gate's refusal
        exc = _buffer_refusal() or exc
    # a tool's own subclass of one (whatever its __module__ says) is the tool's failure
    if isinstance(exc, ToolpenError) and type(exc) in HOST_ERRORS:
        if type(exc.line) is not int:  # unknown, or something else the tool set
            exc.line = line
        return exc
    if isinstance(exc, MemoryError):
        return MemoryExceeded(f"the tool used more than its {limits.memory // MiB} MiB of memory", line=line)
    if isinstance(exc, RecursionError):
        return RecursionLimit(
            f"the tool recursed deeper than {limits.recursion} calls (plain CPython stops at 1000;"
            " a tool's own Limits(recursion=N) raises it)",
            line=line,
        )
    where = f" (line {line})" if line is not None else ""
    return ToolFailed(f"{_safe_class_name(exc)}: {str(exc)}{where}", line=line)


def _walls_report(walls: Walls) -> Done:
    return Done({"active": walls.active, "missing": walls.missing, "namespaces": walls.namespaces})
