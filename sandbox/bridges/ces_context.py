"""The globals of the CES Python runtime, as tool and callback code sees them inside a worker.

``ces_globals(context, rpc, start)`` is the whole injected namespace (``ces_classes``, which hold
nothing of a call, and ``call_globals``, bound to one): ``context`` (a :class:`ToolContext`),
``tools`` and ``async_tools``, ``ces_requests``, the module-level ``get_variable`` /
``set_variable`` / ``remove_variable``, and the classes of ``sandbox.bridges.ces_types``.
``HookCall`` turns the host's JSON into the objects a callback or fake receives, and reports
what the callback changed in them (CES hosts see in-place edits of ``input`` and ``llm_request``).

Everything here is built on the proxies (``StateProxy``, the ``tools`` RPC): no host object
reaches tool code, and what goes back to the host is JSON.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import json
import re
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeGuard

from sandbox.bridges.ces_names import MODEL_CLASS_NAMES
from sandbox.bridges.proxies import Context, State, StatusError, Tools
from sandbox.bridges.requests_proxy import make_ces_requests
from sandbox.common.errors import InvalidSource
from sandbox.common.parsing import parse_source
from sandbox.language.pydantic_loader import load_pydantic
from sandbox.messages import WRITABLE_HOOK_VALUES, Rpc, StartRpc

if TYPE_CHECKING:
    from sandbox.bridges.ces_types import CesModel, Event, Part

"""The CES classes built on pydantic (``sandbox.bridges.ces_types``), by name: a tool's globals get
them when its code names one (``uses_model_classes``), so that pydantic loads only where used."""
_GLOBALS_READERS = frozenset({"globals", "vars", "locals", "eval", "exec"})
"""Names through which plain CPython code (``walls="process"``) reads its globals without naming them."""


def ces_types() -> ModuleType:
    """``sandbox.bridges.ces_types`` (the CES classes), pydantic loaded and walled first."""
    module = sys.modules.get("sandbox.bridges.ces_types")
    if module is None:
        load_pydantic()
        module = importlib.import_module("sandbox.bridges.ces_types")
    return module


def _as_model(model: str, value: Any) -> Any:
    """``value`` read into the CES class ``model`` when it has that shape; unchanged (JSON) otherwise."""
    if not isinstance(value, dict):
        return value
    model_class = getattr(ces_types(), model)
    try:
        return model_class.model_validate(value)
    except load_pydantic().ValidationError:
        return value


def _ces_event(event: Any) -> Any:
    """A session event as a CES ``Event``; our ``{"set", "deleted"}`` delta becomes CES's flat one."""
    if isinstance(event, dict):
        actions = event.get("actions")
        delta = actions.get("state_delta") if isinstance(actions, dict) else None
        if (
            isinstance(actions, dict)
            and isinstance(delta, dict)
            and set(delta) <= {"set", "deleted"}
            and "set" in delta
        ):
            flat = {**dict(delta.get("set") or {}), **dict.fromkeys(delta.get("deleted") or ())}
            event = {**event, "actions": {**actions, "state_delta": flat}}
    return _as_model("Event", event)


_SNAPSHOT_EVENTS = Context.__dict__["events"]
"""The plain context's ``events`` slot: the snapshot's JSON events, converted only when read."""
_SNAPSHOT_USER_CONTENT = Context.__dict__["user_content"]
"""The plain context's ``user_content`` slot: the snapshot's JSON, converted only when read."""
_UNREAD = object()

SESSION_FIELDS: dict[str, Any] = {
    "streaming_stage": None,
    "language_code": "",
    "project_id": "",
    "project_number": 0,
    "location": "",
    "app_id": "",
    "turn_index": 0,
}
"""The context's fields beyond the plain one's, with their values when not given (cxas-scrapi's
``CallbackContext``: the runtime reference's readable part does not list them)."""
_GIVEN_FIELDS = frozenset({*Context.__slots__, *SESSION_FIELDS, "actions", "variables"})
"""The keywords a context built from plain values takes, and the attributes it lets code set."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


_ALIASES = {_camel(name): name for name in _GIVEN_FIELDS if "_" in name}
"""``userContent=`` for ``user_content=`` and so on, as scrapi's pydantic copy accepts."""


def _snapshot_of(values: dict[str, Any]) -> dict[str, Any]:
    """The snapshot a context built from keywords stands for (``state``/``variables`` one mapping)."""
    given = {_ALIASES.get(key, key): value for key, value in values.items()}
    unknown = sorted(set(given) - _GIVEN_FIELDS)
    if unknown:
        raise TypeError(
            f"CallbackContext() got unexpected keyword(s) {', '.join(unknown)}; it takes "
            f"{', '.join(sorted(_GIVEN_FIELDS))}"
        )
    if "variables" in given:
        if "state" in given:
            raise TypeError("CallbackContext() takes state= or variables= (one mapping), not both")
        given["state"] = given.pop("variables")
    return {"invocation_id": "", "agent_name": "", "session_id": "", "events": [], **given}


class CallbackContext(Context):
    """The CES context: identifiers, ``user_content`` (a :class:`Content`), ``events``, ``state``.

    ``variables`` is the same mapping as ``state``. Writes go to the session like a tool's.

    Two ways to build one: the worker's ``CallbackContext(snapshot, rpc)`` (the call's context,
    read-only but for its state), and a test's ``CallbackContext(state={...}, user_content=...,
    events=[...], ...)`` from plain values, as cxas-scrapi's copy is built; such a context is
    the test's own, and its fields may be set (``ctx.user_content = Content(...)``).
    """

    __slots__ = (
        "variables",
        "_ces_events",
        "_ces_user_content",
        "_host",
        "_actions",
        "_own",
        *SESSION_FIELDS,
    )
    variables: Any
    streaming_stage: str | None
    language_code: str
    project_id: str
    project_number: int
    location: str
    app_id: str
    turn_index: int

    def __init__(
        self, snapshot: dict[str, Any] | None = None, rpc: Rpc | None = None, /, **values: Any
    ) -> None:
        if snapshot is not None and values:
            raise TypeError("CallbackContext() takes a snapshot or keyword values, not both")
        own = snapshot is None
        if snapshot is None:
            snapshot = _snapshot_of(values)
        super().__init__(snapshot, rpc)
        set_slot = object.__setattr__
        set_slot(self, "variables", self.state)
        set_slot(self, "_ces_user_content", _UNREAD)
        set_slot(self, "_ces_events", None)
        # a session call's snapshot has no events: they are asked from the host on first use
        set_slot(self, "_host", None if "events" in snapshot else rpc)
        set_slot(self, "_actions", snapshot.get("actions"))
        set_slot(self, "_own", own)
        for name, default in SESSION_FIELDS.items():
            set_slot(self, name, snapshot.get(name, default))

    def __setattr__(self, name: str, value: Any) -> None:
        if not object.__getattribute__(self, "_own") or name not in _GIVEN_FIELDS:
            super().__setattr__(name, value)  # raises: the call's context is read-only
        elif name in ("state", "variables"):
            state = State(dict(value))
            object.__setattr__(self, "state", state)
            object.__setattr__(self, "variables", state)
        elif name == "actions":
            object.__setattr__(self, "_actions", value)
        else:
            object.__setattr__(self, name, value)

    @property
    def actions(self) -> Any:
        """The ``EventActions`` of the current event (an empty one unless given)."""
        actions = object.__getattribute__(self, "_actions")
        if not is_ces_model(actions):
            actions = _as_model("EventActions", actions if actions is not None else {})
            object.__setattr__(self, "_actions", actions)
        return actions

    @property  # type: ignore[override]
    def user_content(self) -> Any:
        """The user's message as a ``Content``, read on first use (most tools never read it, and
        reading it into pydantic costs a single-use call a tenth of a millisecond or more)."""
        content = object.__getattribute__(self, "_ces_user_content")
        if content is _UNREAD:
            content = _as_model("Content", _SNAPSHOT_USER_CONTENT.__get__(self))
            object.__setattr__(self, "_ces_user_content", content)
        return content

    @user_content.setter
    def user_content(self, raw: Any) -> None:
        # the plain context's __init__ sets it, and a test on a context of its own
        _SNAPSHOT_USER_CONTENT.__set__(self, raw)
        object.__setattr__(self, "_ces_user_content", _UNREAD)

    @property  # type: ignore[override]
    def events(self) -> list[Any]:
        """The session's events as ``Event`` objects, read on first use (from the snapshot, or
        from the host when the snapshot has none)."""
        events = object.__getattribute__(self, "_ces_events")
        if events is None:
            host = object.__getattribute__(self, "_host")
            raw = host("context", "events", {}) if host is not None else _SNAPSHOT_EVENTS.__get__(self)
            events = [_ces_event(event) for event in raw or ()]
            object.__setattr__(self, "_ces_events", events)
        return events

    @events.setter
    def events(self, raw: Any) -> None:
        # the plain context's __init__ sets it, and a test on a context of its own
        _SNAPSHOT_EVENTS.__set__(self, raw)
        object.__setattr__(self, "_ces_events", None)

    def get_variable(self, key: str, default: Any = None) -> Any:
        """The value of a session variable, or ``default``."""
        return self.state.get(key, default)

    def set_variable(self, key: str, value: Any) -> None:
        """Set a session variable (written back when the call succeeds)."""
        self.state[key] = value

    def remove_variable(self, key: str) -> None:
        """Remove a session variable; ``KeyError`` when it is not set (``del`` of the key, as
        cxas-scrapi's copy of the runtime does: the reference does not say)."""
        del self.state[key]

    def get_last_user_input(self) -> list[Part]:
        """All parts of the last run of consecutive user events; ``user_content``'s parts when none."""
        parts = self._last_run(lambda event: event.is_user())
        if parts:
            return parts
        content = self.user_content
        return list(content.parts or []) if isinstance(content, ces_types().Content) else []

    def get_last_agent_output(self) -> list[Part]:
        """All parts of the last run of consecutive agent events."""
        return self._last_run(lambda event: event.is_agent())

    def parts(self) -> list[Part]:
        """The parts of every event, oldest first."""
        return [part for event in self._events() for part in event.parts()]

    def _events(self) -> list[Event]:
        event_class = ces_types().Event
        return [event for event in self.events if isinstance(event, event_class)]

    def _last_run(self, matches: Callable[[Event], bool]) -> list[Part]:
        run: list[Event] = []
        for event in reversed(self._events()):
            if matches(event):
                run.append(event)
            elif run:
                break
        return [part for event in reversed(run) for part in event.parts()]


class ToolContext(CallbackContext):
    """The ``context`` global of a Python tool: a :class:`CallbackContext` with ``function_call_id``."""

    __slots__ = ()


class _ResponseMethods:
    """What Google's samples call on a ``tools.<name>(...)`` result, beside using it as the value."""

    status_code = 200
    ok = True
    reason = "OK"

    def json(self) -> Any:
        """The tool's result as plain JSON values."""
        return json.loads(json.dumps(self))

    @property
    def text(self) -> str:
        return self if isinstance(self, str) else json.dumps(self)

    def raise_for_status(self) -> None:
        """Nothing: a call that failed raised already (a ``StatusError``)."""


class ToolResponse(_ResponseMethods, dict):  # type: ignore[type-arg]
    """A tool's dict result: a dict, with ``.json()`` and ``.raise_for_status()``."""


class ToolListResponse(_ResponseMethods, list):  # type: ignore[type-arg]
    """A tool's list result, with the response methods."""


class ToolTextResponse(_ResponseMethods, str):
    """A tool's text result, with the response methods."""


def tool_response(output: Any) -> Any:
    """``output`` with the response methods when it is a dict, list or string; as it is otherwise."""
    if isinstance(output, dict):
        return ToolResponse(output)
    if isinstance(output, list):
        return ToolListResponse(output)
    if isinstance(output, str):
        return ToolTextResponse(output)
    return output


class CesTools(Tools):
    """The ``tools`` global: ``tools.<name>({...})`` or ``tools.<name>(key=value)``; a response-like result."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def call_tool(arguments: dict[str, Any] | None = None, /, **keywords: Any) -> Any:
            return tool_response(self._call(name, {**(arguments or {}), **keywords}))

        call_tool.__name__ = name
        return call_tool


class ToolFuture:
    """A call started through ``async_tools``: the host runs it while the tool carries on.

    Calling it (or ``.result()``) waits for its result, which is the same response as ``tools``
    gives, or raises its failure (a ``StatusError``); its state changes join the caller's state
    then. ``done()`` says whether the result was collected.
    """

    __slots__ = ("_wait", "_collected", "_output", "_error")

    def __init__(self, wait: Callable[[], Any]) -> None:
        self._wait: Callable[[], Any] | None = wait
        self._collected = False
        self._output: Any = None
        self._error: Exception | None = None

    def done(self) -> bool:
        return self._collected

    def result(self) -> Any:
        if not self._collected:
            wait, self._wait, self._collected = self._wait, None, True
            try:
                self._output = wait() if wait is not None else None
            except Exception as error:  # delivered when the result is asked for, as CES does
                self._error = error
        if self._error is not None:
            raise self._error
        return self._output

    __call__ = result


class AsyncTools:
    """The ``async_tools`` global: ``f = async_tools.<name>({...})`` starts a call, ``f()`` gives its result.

    The call starts at once and the host runs it concurrently with the tool and with other
    started calls (each in a worker of its own). A started call whose result is never asked for
    is still waited for before the tool's own call ends, and its state changes are kept.
    """

    __slots__ = ("_tools", "_start", "_futures")
    _tools: CesTools
    _start: StartRpc
    _futures: list[ToolFuture]

    def __init__(self, tools: CesTools, start: StartRpc) -> None:
        object.__setattr__(self, "_tools", tools)
        object.__setattr__(self, "_start", start)
        object.__setattr__(self, "_futures", [])

    def __getattr__(self, name: str) -> Callable[..., ToolFuture]:
        if name.startswith("_"):
            raise AttributeError(name)
        tools, begin, futures = self._tools, self._start, self._futures

        def start(arguments: dict[str, Any] | None = None, /, **keywords: Any) -> ToolFuture:
            answer = begin("tools", "call", tools._params(name, {**(arguments or {}), **keywords}))
            future = ToolFuture(lambda: tool_response(tools._taken(answer)))
            futures.append(future)
            return future

        start.__name__ = name
        return start

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("async_tools is read-only")


def settle(async_tools: AsyncTools) -> None:
    """Collect every started call whose result the code never asked for (failures are dropped)."""
    for future in object.__getattribute__(async_tools, "_futures"):
        with contextlib.suppress(Exception):
            future.result()


def run_at_start(rpc: Rpc) -> StartRpc:
    """``start`` where no host answers concurrently (a warm-up run): the call runs when started,
    and its failure is raised when its result is asked for."""

    def start(target: str, method: str, params: dict[str, Any]) -> Callable[[], Any]:
        try:
            result = rpc(target, method, params)
        except Exception as error:
            failure = error

            def fail() -> Any:
                raise failure

            return fail
        return lambda: result

    return start


def ces_globals(
    context: ToolContext, rpc: Rpc, start: StartRpc | None = None, *, model_classes: bool = True
) -> dict[str, Any]:
    """Every name the CES runtime defines for tool and callback code, bound to this call:
    ``ces_classes`` and ``call_globals``."""
    return ces_classes(model_classes=model_classes) | call_globals(context, rpc, start)


def ces_classes(*, model_classes: bool = True) -> dict[str, Any]:
    """The names of the CES runtime that hold nothing of a call (its classes): what a tool image's
    module code runs with (``sandbox.process.tool_image``).

    ``model_classes``: with the classes built on pydantic (``uses_model_classes`` of the code);
    without them, the code names none, and pydantic need not load."""
    return {
        **(ces_types().CES_CLASSES if model_classes else {"StatusError": StatusError}),
        "CallbackContext": CallbackContext,
        "ToolContext": ToolContext,
        "AsyncTools": AsyncTools,
    }


def call_globals(context: ToolContext, rpc: Rpc, start: StartRpc | None = None) -> dict[str, Any]:
    """The names bound to one call (``ces_names.CALL_NAMES``): its ``context``, ``tools``, ``async_tools``
    (``start`` sends their calls; default: each runs when started), ``ces_requests`` and the
    variable functions."""
    tools = CesTools(rpc, context.state)
    return {
        "context": context,
        "tools": tools,
        "async_tools": AsyncTools(tools, start or run_at_start(rpc)),
        "ces_requests": make_ces_requests(rpc),
        "get_variable": context.get_variable,
        "set_variable": context.set_variable,
        "remove_variable": context.remove_variable,
    }


def uses_model_classes(source: str) -> bool:
    """Whether ``source`` names a CES class built on pydantic, or reads its globals some other way
    (``globals()``, plain CPython only)."""
    return bool(names_in(source) & _MODEL_CLASS_READERS)


_MODEL_CLASS_READERS = frozenset(MODEL_CLASS_NAMES) | _GLOBALS_READERS


@functools.cache
def names_in(source: str) -> frozenset[str]:
    """The names ``source`` uses, read, not run: variables, attributes, functions, classes and
    parameters, those inside string annotations (``x: "Part"``), and strings that are names
    (``getattr(context, "events")``). Empty for a source that does not parse.

    A zygote reads them once per tool it warms (``warmup.modules_needed``); its workers find them
    cached, however many tools the pool has (one small set per source).
    """
    try:
        tree = parse_source(source)
    except InvalidSource:
        return frozenset()
    names: set[str] = set()
    annotations: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            if not isinstance(node, ast.ClassDef) and node.returns is not None:
                annotations.append(node.returns)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
            if node.annotation is not None:
                annotations.append(node.annotation)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            names.add(node.value)
    for annotation in annotations:
        for node in ast.walk(annotation):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.update(_IDENTIFIER.findall(node.value))
    return frozenset(names)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _hook_value(name: str, value: Any) -> Any:
    if name == "tool":
        return ces_types().Tool.model_validate(value or {})
    if name == "llm_request":
        return _as_model("LlmRequest", value if value is not None else {})
    if name == "llm_response":
        return _as_model("LlmResponse", value if value is not None else {})
    return value


def is_ces_model(value: object) -> TypeGuard[CesModel]:
    """Whether ``value`` is an object of a CES class (never, where they are not loaded)."""
    types = sys.modules.get("sandbox.bridges.ces_types")
    return types is not None and isinstance(value, types.CesModel)


def _json_of(value: Any) -> Any:
    return value.to_json() if is_ces_model(value) else json.loads(json.dumps(value))


class HookCall:
    """One callback or fake call, from ``{"parameters": [...], "values": {...}}``.

    ``arguments`` are what the function receives: ``callback_context`` is the call's context,
    ``tool`` a :class:`Tool`, ``llm_request`` / ``llm_response`` an :class:`LlmRequest` /
    :class:`LlmResponse`; ``input`` and ``tool_response`` stay dicts, as in CES. ``changed()``
    gives the writable arguments the function changed in place, as JSON.
    """

    def __init__(self, hook: dict[str, Any], context: CallbackContext) -> None:
        values = hook.get("values") or {}
        self.parameters = list(hook["parameters"])
        self.arguments = [
            context if name == "callback_context" else _hook_value(name, values.get(name))
            for name in self.parameters
        ]
        self._before = {
            name: _json_of(argument)
            for name, argument in zip(self.parameters, self.arguments, strict=True)
            if name in WRITABLE_HOOK_VALUES and argument is not None
        }

    def changed(self) -> dict[str, Any]:
        """``{name: json}`` for each writable argument that differs from what the function was given."""
        changed: dict[str, Any] = {}
        for name, argument in zip(self.parameters, self.arguments, strict=True):
            if name in self._before and (after := _json_of(argument)) != self._before[name]:
                changed[name] = after
        return changed
