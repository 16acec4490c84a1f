"""The messages between host and worker (and zygote), typed, with their encode and decode: JSON only, never pickle.

The thirteen kinds are spelled here and nowhere else. On a worker's socket (framed, ``sandbox.wire``):

- host -> worker: :class:`Call` (``call``: one job), :class:`WallsQuery` (``walls``: the walls in
  force, answered as a ``done``), :class:`RpcResult` / :class:`RpcError` (``rpc_result`` /
  ``rpc_error``: the answer to one ``rpc``);
- worker -> host: :class:`RpcRequest` (``rpc``, any number of times during a call), then
  :class:`Done` (``done``: the call's result, or its error, and its logs).

On the zygote's control socket (one JSON packet each, ``SOCK_SEQPACKET``): the fixed-size binary
``FORK_REQUEST``; :class:`Warm` (``warm``) -> :class:`Warmed` (``warmed``); :class:`Forked`
(``forked``, the worker's socket and pidfd attached); :class:`Exit` (``exit``: a worker that
ended other than cleanly); :class:`Image` (``image``: start a tool image) -> :class:`Imaged`
(``imaged``: its module ran, failed, or its process ended); :class:`Drop` (``drop``: end one).
A tool image sends the zygote ``forked``, ``exit`` and ``imaged`` on a socket of its own
(``decode_from_image``), which the zygote checks and hands on.

A message from the worker is decoded once, here, and checked: a frame out of turn or of the
wrong shape is a ``ProtocolError``, which ends the call with kind ``protocol``. :class:`Done` is
also what the host makes of a worker that died, overran or broke the protocol (its ``error``).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sandbox.common.errors import InvalidState, ToolpenError, error_from_dict
from sandbox.common.state_delta import StateDelta
from sandbox.wire import ProtocolError

Rpc = Callable[[str, str, dict[str, Any]], Any]
"""``rpc(target, method, params) -> result``: a call from a worker to a host service (``tools``, ``http``)."""

StartRpc = Callable[[str, str, dict[str, Any]], Callable[[], Any]]
"""``start(target, method, params) -> wait``: a call the host answers concurrently (its ``rpc`` frame
says ``"concurrent": true``) while the worker carries on; ``wait()`` gives its result or raises."""

FORK_REQUEST = struct.Struct("=4s?ii")
"""The pool's request for a worker on the zygote's control socket: ``b"fork"``, whether the worker
is kept for more calls, the pid of the worker it replaces (0: none), which the zygote kills, and the
tool image to fork it from (0: the zygote itself; the zygote hands the request on to that image).
Fixed-size binary rather than JSON, so that the zygote's work per worker stays short (each page it
writes while a worker shares it is a copy)."""

WRITABLE_HOOK_VALUES = ("input", "llm_request", "llm_response")
"""Callback arguments whose in-place changes a ``done`` reports back (``"hook_values"``), as in CES:
a ``before_tool`` callback may edit ``input``, a ``before_model`` callback ``llm_request`` (``hide_tool``)."""


KIND = "op"  # the member of every JSON message that names its kind
CALL = "call"
RPC = "rpc"
RPC_RESULT = "rpc_result"
RPC_ERROR = "rpc_error"
DONE = "done"
WALLS = "walls"
WARM = "warm"
WARMED = "warmed"
FORKED = "forked"
EXIT = "exit"
IMAGE = "image"
IMAGED = "imaged"
DROP = "drop"

FORKED_PACKET = b'{"%s":"%s","pid":%%d}' % (KIND.encode(), FORKED.encode())
IMAGE_FORKED_PACKET = b'{"%s":"%s","pid":%%d,"image":%%d}' % (KIND.encode(), FORKED.encode())
"""A ``forked`` packet of a tool image's worker, as the zygote hands it on (``% (pid, image)``)."""
"""A ``forked`` packet as bytes with the pid to fill in (``FORKED_PACKET % pid``): the zygote's loop
per worker formats no JSON (every page it writes while workers share it is copied)."""


def kind_of(message: dict[str, Any]) -> Any:
    """The kind a decoded JSON message says it is (None if it says none)."""
    return message.get(KIND)


# -- on a worker's socket ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Call:
    """One job for a worker: a tool (``args``) or a callback or fake (``hook``) in a context, under limits."""

    source: str
    entry: str
    args: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    limits: dict[str, Any] | None = None
    walls: str | None = None  # "process": plain CPython; anything else: the language wall
    hook: dict[str, Any] | None = None  # {"parameters": [...], "values": {...}} (ces_context.HookCall)
    injected: dict[str, Any] | None = None  # parameter -> the framework context it gets (framework_context)
    environment: dict[str, str] | None = None  # os.environ of the call (Runtime(tool_environment=...))

    @classmethod
    def from_dict(cls, job: dict[str, Any]) -> Call:
        """A call from its JSON object (``source``, ``entry``, ``args`` or ``hook``, ``context``,
        ``limits``, ``walls``), checked: how the worker decodes a ``call`` message."""
        source, entry = job["source"], job["entry"]
        if not (isinstance(source, str) and isinstance(entry, str)):
            raise ProtocolError("a call's source and entry must be strings")
        return cls(
            source,
            entry,
            _object_or_none(job.get("args"), "args"),
            _object_or_none(job.get("context"), "context"),
            _object_or_none(job.get("limits"), "limits"),
            _text_or_none(job.get("walls"), "walls"),
            _object_or_none(job.get("hook"), "hook"),
            _object_or_none(job.get("injected"), "injected"),
            _environment_or_none(job.get("environment")),
        )

    def encode(self) -> dict[str, Any]:
        message: dict[str, Any] = {KIND: CALL, "source": self.source, "entry": self.entry}
        for name in ("args", "context", "limits", "walls", "hook", "injected", "environment"):
            value = getattr(self, name)
            if value is not None:
                message[name] = value
        return message


@dataclass(frozen=True, slots=True)
class WallsQuery:
    """The host asks a worker which walls are in force; answered as a :class:`Done` whose output is the report."""

    def encode(self) -> dict[str, Any]:
        return {KIND: WALLS}


def decode_job(message: dict[str, Any]) -> Call | WallsQuery:
    """What the host sent a worker: a ``call`` or a ``walls`` query."""
    kind = kind_of(message)
    if kind == WALLS:
        return WallsQuery()
    if kind != CALL:
        raise ProtocolError(f"unexpected job {repr(kind)[:40]}")
    return Call.from_dict(message)


@dataclass(frozen=True, slots=True)
class RpcRequest:
    """A call from the worker to a host service (``tools``, ``http``, ``context``); ``concurrent``:
    answered in a host thread of its own while the worker carries on (``async_tools``)."""

    id: int
    target: str
    method: str
    params: dict[str, Any]
    concurrent: bool = False

    def encode(self) -> dict[str, Any]:
        message = {
            KIND: RPC,
            "id": self.id,
            "target": self.target,
            "method": self.method,
            "params": self.params,
        }
        if self.concurrent:
            message["concurrent"] = True
        return message

    @classmethod
    def decode(cls, message: dict[str, Any], after: int = 0) -> RpcRequest:
        """Read an ``rpc`` whose id must be above ``after`` (the call's earlier ones: an id is never reused)."""
        request_id = message.get("id")
        if type(request_id) is not int or request_id <= after:
            raise ProtocolError("an rpc id must be an integer above the call's earlier ones")
        target, method, params = message.get("target"), message.get("method"), message.get("params")
        if not (isinstance(target, str) and isinstance(method, str) and isinstance(params, dict)):
            raise ProtocolError('an rpc is {"op", "id", "target": str, "method": str, "params": {...}}')
        return cls(request_id, target, method, params, message.get("concurrent") is True)


@dataclass(frozen=True, slots=True)
class RpcResult:
    """The host's answer to one ``rpc``."""

    id: int
    result: Any

    def encode(self) -> dict[str, Any]:
        return {KIND: RPC_RESULT, "id": self.id, "result": self.result}


@dataclass(frozen=True, slots=True)
class RpcError:
    """The host's refusal of one ``rpc``: ``{kind, message}``, rebuilt in the worker as a ``ToolpenError``."""

    id: int
    error: dict[str, Any]

    def encode(self) -> dict[str, Any]:
        return {KIND: RPC_ERROR, "id": self.id, "error": self.error}


def decode_answer(message: dict[str, Any]) -> RpcResult | RpcError | None:
    """An answer from the host, in the worker; None when it is not one."""
    request_id = message.get("id")
    if type(request_id) is not int:
        return None
    kind = kind_of(message)
    if kind == RPC_ERROR:
        error = message.get("error")
        return RpcError(request_id, error if isinstance(error, dict) else {})
    if kind == RPC_RESULT:
        return RpcResult(request_id, message.get("result"))
    return None


@dataclass(frozen=True, slots=True)
class Done:
    """A worker's answer to one call (its ``done`` message, decoded and checked once), or the host's
    word for a worker that ended without one; ``error`` is None exactly when it succeeded."""

    output: Any = None
    error: ToolpenError | None = None
    state_delta: StateDelta = field(default_factory=StateDelta)
    logs: str = ""
    hook_values: dict[str, Any] = field(default_factory=dict)
    """A callback's in-place changes to its writable arguments (``input``, ``llm_request``, ``llm_response``)."""

    @property
    def success(self) -> bool:
        return self.error is None

    def encode(self) -> dict[str, Any]:
        """The ``done`` message (built in the worker)."""
        if self.error is not None:
            return {KIND: DONE, "success": False, "error": self.error.to_dict(), "logs": self.logs}
        message = {
            KIND: DONE,
            "success": True,
            "output": self.output,
            "state_delta": self.state_delta.to_dict(),
        }
        if self.hook_values:
            message["hook_values"] = self.hook_values
        message["logs"] = self.logs
        return message

    @classmethod
    def decode(cls, done: dict[str, Any]) -> Done:
        """Read a ``done`` message; raises ``ProtocolError`` when it is not the shape the wire promises."""
        logs = done.get("logs", "")
        if not isinstance(logs, str):
            raise ProtocolError("a reply's logs must be a string")
        if done.get("success") is False:
            return cls(error=_decode_error(done.get("error")), logs=logs)
        if done.get("success") is not True or "output" not in done:
            raise ProtocolError('a reply is {"success": true, "output", ...} or {"success": false, "error"}')
        try:
            delta = StateDelta.from_dict(done.get("state_delta"))
        except InvalidState as exc:
            raise ProtocolError(exc.message) from None
        hook_values = done.get("hook_values", {})
        if not isinstance(hook_values, dict) or not set(hook_values) <= set(WRITABLE_HOOK_VALUES):
            raise ProtocolError(f"a reply's hook_values name only {', '.join(WRITABLE_HOOK_VALUES)}")
        return cls(output=done["output"], state_delta=delta, logs=logs, hook_values=hook_values)


def _decode_error(error: Any) -> ToolpenError:
    if not (
        isinstance(error, dict)
        and isinstance(error.get("kind"), str)
        and isinstance(error.get("message"), str)
        and all(isinstance(error.get(key), int | None) for key in ("line", "col"))
    ):
        raise ProtocolError('a failed reply\'s error is {"kind", "message"[, "line", "col"]}')
    return error_from_dict(error)


def _object_or_none(value: Any, name: str) -> dict[str, Any] | None:
    if value is not None and not isinstance(value, dict):
        raise ProtocolError(f"a call's {name} must be an object")
    return value


def _environment_or_none(value: Any) -> dict[str, str] | None:
    if value is not None and not (
        isinstance(value, dict) and all(type(k) is str and type(v) is str for k, v in value.items())
    ):
        raise ProtocolError("a call's environment must be an object of strings")
    return value


def _text_or_none(value: Any, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ProtocolError(f"a call's {name} must be a string")
    return value


# -- on the zygote's control socket ----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Warm:
    """Compile a tool in the zygote (for a walls mode) and load what it imports."""

    source: str
    walls: str | None

    def encode(self) -> dict[str, Any]:
        return {KIND: WARM, "source": self.source, "walls": self.walls}


@dataclass(frozen=True, slots=True)
class Warmed:
    """The zygote has warmed the next tool sent; ``loaded``: a module was loaded."""

    loaded: bool

    def encode(self) -> dict[str, Any]:
        return {KIND: WARMED, "loaded": self.loaded}


@dataclass(frozen=True, slots=True)
class Forked:
    """A worker forked (its socket and a pidfd come attached); ``pid`` is the jail's; ``image``: the
    tool image that forked it (0: the zygote)."""

    pid: int
    image: int = 0


@dataclass(frozen=True, slots=True)
class Image:
    """Start tool image ``number`` (``sandbox.process.tool_image``): a process forked from the zygote
    that runs the top-level code of ``job``'s tool once, then forks that tool's workers."""

    number: int
    job: Call

    def encode(self) -> dict[str, Any]:
        return {KIND: IMAGE, "image": self.number, "job": self.job.encode()}


@dataclass(frozen=True, slots=True)
class Drop:
    """End tool image ``number`` (the pool's least recently used, or one it no longer needs)."""

    number: int

    def encode(self) -> dict[str, Any]:
        return {KIND: DROP, "image": self.number}


@dataclass(frozen=True, slots=True)
class Imaged:
    """News of tool image ``number``: its module ran (``error`` None) or failed (the error, located),
    or (``ended``) its process is gone. An image sends it to the zygote as number 0."""

    number: int
    error: dict[str, Any] | None = None
    ended: bool = False

    def encode(self) -> dict[str, Any]:
        return {KIND: IMAGED, "image": self.number, "error": self.error, "ended": self.ended}

    @classmethod
    def decode(cls, message: dict[str, Any]) -> Imaged:
        number, error = message.get("image"), message.get("error")
        if type(number) is not int or not (error is None or isinstance(error, dict)):
            raise ProtocolError('an imaged message is {"op", "image": int, "error": null | {...}}')
        return cls(number, error, message.get("ended") is True)


@dataclass(frozen=True, slots=True)
class Exit:
    """A worker that ended other than cleanly before it was retired; ``code`` < 0: the signal."""

    pid: int
    code: int

    def encode(self) -> dict[str, Any]:
        return {KIND: EXIT, "pid": self.pid, "code": self.code}


def decode_for_zygote(message: dict[str, Any]) -> Warm | Image | Drop | None:
    """A JSON message on the zygote's side of its control socket (the fork request is binary)."""
    kind = kind_of(message)
    if kind == IMAGE and type(message.get("image")) is int and isinstance(message.get("job"), dict):
        return Image(message["image"], Call.from_dict(message["job"]))
    if kind == DROP and type(message.get("image")) is int:
        return Drop(message["image"])
    if kind != WARM:
        return None
    return Warm(str(message.get("source", "")), message.get("walls"))


def decode_from_image(message: dict[str, Any]) -> Forked | Exit | Imaged | None:
    """A message from a tool image to the zygote (tool code ran in it: checked, never trusted); None
    for one it does not know."""
    kind = kind_of(message)
    if kind == FORKED and type(message.get("pid")) is int:
        return Forked(message["pid"])
    if kind == EXIT and type(message.get("pid")) is int and type(message.get("code")) is int:
        return Exit(message["pid"], message["code"])
    if kind == IMAGED:
        return Imaged.decode(message)
    return None


def decode_from_zygote(message: dict[str, Any]) -> Forked | Exit | Warmed | Imaged | None:
    """A message on the host's side of the control socket; None for one it does not know."""
    kind = kind_of(message)
    if kind == IMAGED:
        return Imaged.decode(message)
    if kind == FORKED:
        return Forked(int(message["pid"]), int(message.get("image", 0)))
    if kind == EXIT:
        return Exit(int(message["pid"]), int(message["code"]))
    if kind == WARMED:
        return Warmed(bool(message.get("loaded")))
    return None
