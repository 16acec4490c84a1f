"""What tool code sees of the host, from inside a worker: ``context``, ``tools`` and the RPC client.

Every proxy talks to the host through one ``Rpc`` callable, ``rpc(target, method, params)``,
which sends an ``rpc`` frame and waits for its answer; a failure comes back as the rebuilt
``ToolpenError``. A proxy for ``ces_requests`` plugs in the same way (see ``sandbox.process.worker``).
"""

from __future__ import annotations

import copy
import json
import marshal
import socket
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sandbox.common.errors import InvalidState, ToolpenError, WorkerCrashed, error_from_dict
from sandbox.common.state_delta import entry_size, json_size
from sandbox.messages import Rpc, RpcError, RpcRequest, RpcResult, decode_answer
from sandbox.wire import recv_frame, send_frame


class RpcClient:
    """``rpc(target, method, params) -> result`` over the worker's socket to the parent.

    ``start`` sends a call without waiting for its answer (``async_tools``): the host answers
    such calls concurrently, so answers may come in any order; ``wait`` reads until its own has
    come, keeping the others for their own ``wait``. ``drain`` waits for every call still
    unanswered, so that nothing of a call reaches the socket after its ``done``.
    """

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._next_id = 0
        self._unanswered: set[int] = set()
        self._answers: dict[int, RpcResult | RpcError] = {}

    def __call__(self, target: str, method: str, params: dict[str, Any]) -> Any:
        return self.wait(self._send(target, method, params, concurrent=False))

    def start(self, target: str, method: str, params: dict[str, Any]) -> Callable[[], Any]:
        """Send a call the host answers while this worker carries on; the returned ``wait()`` gives its result."""
        request_id = self._send(target, method, params, concurrent=True)
        return lambda: self.wait(request_id)

    def wait(self, request_id: int) -> Any:
        """The result of call ``request_id`` (read once); raises the host's error rebuilt."""
        while request_id not in self._answers:
            self._read_answer()
        reply = self._answers.pop(request_id)
        if isinstance(reply, RpcError):
            raise error_from_dict(reply.error)
        return reply.result

    def drain(self) -> None:
        """Wait for every call still unanswered and drop the answers never asked for."""
        while self._unanswered:
            self._read_answer()
        self._answers.clear()

    def _read_answer(self) -> None:
        message = recv_frame(self._sock)
        reply = decode_answer(message) if message is not None else None
        if reply is None or reply.id not in self._unanswered:
            raise WorkerCrashed("the host did not answer a call from the tool")
        self._unanswered.discard(reply.id)
        self._answers[reply.id] = reply

    def _send(self, target: str, method: str, params: dict[str, Any], *, concurrent: bool) -> int:
        self._next_id += 1
        request_id = self._next_id
        send_frame(self._sock, RpcRequest(request_id, target, method, params, concurrent).encode())
        self._unanswered.add(request_id)
        return request_id


def _json_text(key: str, value: Any) -> str:
    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidState(f"context.state[{key!r}] is not JSON: {exc}") from None


class _Unread:
    """What a state key not yet read holds in the ``State`` dict: its value stays in the host."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<not read>"


_UNREAD = _Unread()

Fetch = Callable[[list[str]], dict[str, Any]]
"""``fetch(keys) -> {key: value}``: the values of state keys, read from the host."""


class State(dict[str, Any]):
    """``context.state``: a real ``dict`` (``copy()``, ``json.dumps``, ``**state``, ``isinstance``).

    It holds the snapshot's values (decoded for this call alone, so changing them in place is
    the tool's own business) and keeps a deep copy of them: ``state_delta`` then finds every
    change however it was made (assignment, ``update``, ``pop``, a nested list appended to).
    Assignments are also remembered, so a key set to its old value is still reported as set.

    A session's large values stay in the host (``lazy``: their keys and JSON sizes) until the
    code reads them: ``fetch`` brings them on first read of that key, or all at once when the
    code reads the whole mapping (``items()``, ``values()``, ``copy()``, ``==``, JSON). Until
    then the dict holds a placeholder; ``__iter__`` is overridden so that CPython's ``dict(state)``
    and ``**state`` read through ``__getitem__`` rather than the dict's storage.
    """

    __slots__ = ("_original", "_assigned", "_unread", "_fetch", "_sizes", "_total")

    def __init__(
        self,
        snapshot: dict[str, Any],
        lazy: dict[str, int] | None = None,
        fetch: Fetch | None = None,
        total: int | None = None,
    ) -> None:
        super().__init__(snapshot)
        lazy = {key: size for key, size in (lazy or {}).items() if key in snapshot}
        if lazy and fetch is None:
            raise InvalidState("a state with values left in the host needs a way to read them")
        self._original = _deep_copy({key: value for key, value in snapshot.items() if key not in lazy})
        if lazy:
            for key in lazy:
                dict.__setitem__(self, key, _UNREAD)
            self._original = {key: self._original.get(key, _UNREAD) for key in snapshot}
        self._assigned: set[str] = set()
        self._unread = set(lazy)
        self._fetch = fetch
        self._sizes = lazy
        """The JSON sizes of the values the host kept (read or not)."""
        self._total = total
        """The snapshot's size as compact JSON, when the host said (else measured when needed)."""

    def _read(self, keys: Iterable[str]) -> None:
        """Bring the values of ``keys`` still in the host (none: nothing asked)."""
        wanted = [key for key in keys if key in self._unread]
        if not wanted:
            return
        assert self._fetch is not None
        values = self._fetch(wanted)
        for key in wanted:
            if key not in values:
                raise InvalidState(f"the host did not send the value of context.state[{key!r}]")
            value = values[key]
            dict.__setitem__(self, key, value)
            self._original[key] = _deep_copy({key: value})[key]
            self._unread.discard(key)

    def _read_all(self) -> None:
        if self._unread:
            self._read(list(self._unread))

    def __getitem__(self, key: str) -> Any:
        if key in self._unread:
            self._read([key])
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[key] if key in self else default  # noqa: SIM401 (self.get is this method)

    def __iter__(self) -> Iterator[str]:
        return super().__iter__()

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise InvalidState(f"context.state keys must be strings, not {type(key).__name__}")
        _json_text(key, value)
        super().__setitem__(key, value)
        self._unread.discard(key)
        self._assigned.add(key)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._unread.discard(key)

    def pop(self, key: str, *default: Any) -> Any:
        if key in self._unread:
            self._read([key])
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        self._read_all()
        return super().popitem()

    def clear(self) -> None:
        super().clear()
        self._unread.clear()

    def values(self) -> Any:
        self._read_all()
        return super().values()

    def items(self) -> Any:
        self._read_all()
        return super().items()

    def copy(self) -> dict[str, Any]:
        self._read_all()
        return dict.copy(self)

    def __eq__(self, other: object) -> bool:
        self._read_all()
        if isinstance(other, State):
            other._read_all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._read_all()
        return dict.__repr__(self)

    def __or__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        self._read_all()
        return dict.__or__(self, other)  # type: ignore[operator,no-any-return]

    def __ror__(self, other: Any) -> dict[str, Any]:  # type: ignore[override]
        self._read_all()
        return dict.__ror__(self, other)  # type: ignore[operator,no-any-return]

    def __reduce_ex__(self, protocol: Any) -> Any:
        self._read_all()
        return super().__reduce_ex__(protocol)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __ior__(self, other: Any) -> State:  # type: ignore[override,misc]
        self.update(other)
        return self


# what tool code sees in its own messages ("'dict' object has no attribute 'x'"), as with a plain dict
State.__name__ = State.__qualname__ = "dict"


def _deep_copy(values: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of JSON values: marshal copies exactly those types, several times faster than json."""
    try:
        return marshal.loads(marshal.dumps(values))  # type: ignore[no-any-return]
    except ValueError:  # not plain JSON types (a snapshot built by hand)
        return copy.deepcopy(values)


def state_delta(state: State) -> dict[str, Any]:
    """``{"set": {...}, "deleted": [...]}`` against the snapshot; raises ``InvalidState`` naming a bad key.

    A key is set when it was assigned, or when its value no longer equals (and has the type of)
    the snapshot's; only those values are serialized, so an untouched large state costs little.
    A value still in the host (never read) is unchanged.
    """
    original = state._original
    untouched = _untouched(state, original)  # compared in C: a large state left alone costs little
    keys: Iterable[str] = [key for key in state._assigned if key in state] if untouched else dict.keys(state)
    changed: dict[str, Any] = {}
    for key in keys:
        if key in state._unread:
            continue
        value = dict.__getitem__(state, key)
        if not isinstance(key, str):
            raise InvalidState(f"context.state keys must be strings, not {type(key).__name__}")
        before = original.get(key, _ABSENT)
        if key in state._assigned or type(value) is not type(before) or value != before:
            # the key as a plain str, as JSON writes it: the delta keeps no object of the tool's
            changed[str.__str__(key)] = json.loads(_json_text(key, value))
    deleted = [] if untouched else sorted(key for key in original if not dict.__contains__(state, key))
    return {"set": changed, "deleted": deleted}


_ABSENT = object()


def _untouched(state: State, original: dict[str, Any]) -> bool:
    """The same keys in the same order, equal values of the same types (at the top, as
    ``state_delta`` compares them): only the keys assigned may have been set."""
    return (
        list(dict.keys(state)) == list(original)
        and dict.__eq__(state, original)
        and list(map(type, dict.values(state))) == list(map(type, original.values()))
    )


def state_size_after(state: State, delta: dict[str, Any]) -> int:
    """The size as compact JSON of the state ``delta`` (as ``state_delta`` made it) leaves, from
    the snapshot's size and the sizes of the keys it changes: the values left in the host are
    not read, and the whole state is not encoded again."""
    original = state._original
    total = state._total
    if total is None:
        total = json_size({key: value for key, value in original.items() if key not in state._sizes})
        total += sum(entry_size(key, state._sizes[key]) for key in original if key in state._sizes)
    changed = [*delta["set"], *delta["deleted"]]
    for key in changed:
        if key in original:
            size = state._sizes[key] if key in state._sizes else json_size(original[key])
            total -= entry_size(key, size)
    for key, value in delta["set"].items():
        total += entry_size(key, json_size(value))
    return max(total, 2)


def apply_state_delta(state: State, delta: dict[str, Any]) -> None:
    """Take in a nested tool's changes as if this tool had made them (a key it deleted that
    this tool never read is dropped unread: its value is not fetched)."""
    for key, value in (delta.get("set") or {}).items():
        state[key] = value
    for key in delta.get("deleted") or ():
        if dict.__contains__(state, key):
            del state[key]


class Context:
    """The read-only ``context`` global: call and session identifiers, events and ``state``."""

    __slots__ = (
        "function_call_id",
        "user_content",
        "events",
        "session_id",
        "invocation_id",
        "agent_name",
        "state",
    )
    function_call_id: str | None
    user_content: Any
    events: Any
    session_id: str | None
    invocation_id: str | None
    agent_name: str | None
    state: State

    def __init__(self, snapshot: dict[str, Any], rpc: Rpc | None = None) -> None:
        set_slot = object.__setattr__
        for name in Context.__slots__:
            if name != "state":
                set_slot(self, name, snapshot.get(name))
        fetch = None if rpc is None else _state_reader(rpc)
        state = State(
            snapshot.get("state") or {}, snapshot.get("lazy_state"), fetch, snapshot.get("state_size")
        )
        set_slot(self, "state", state)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"context.{name} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"context.{name} is read-only")


def _state_reader(rpc: Rpc) -> Fetch:
    """``fetch`` for a ``State``: the ``state.read`` service of the host."""

    def fetch(keys: list[str]) -> dict[str, Any]:
        values = rpc("state", "read", {"keys": keys})
        if not isinstance(values, dict):
            raise InvalidState("the host answered a state read with something other than the values")
        return values

    return fetch


class StatusError(Exception):
    """An HTTP-style failure: ``raise_for_status()`` of a tool's response raises it."""

    def __init__(self, message: str = "", status_code: int = 500, reason: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.reason = reason


_STATUS_OF_KIND = {"invalid_arguments": 400, "not_found": 404, "policy": 403, "timeout": 504}


class ToolCallError(StatusError):
    """A tool called through ``tools`` failed: a CES ``StatusError`` (``except StatusError`` or ``Exception``)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}", _STATUS_OF_KIND.get(kind, 500), kind)
        self.kind = kind
        self.message = message


class Tools:
    """The ``tools`` global: ``tools.<name>(args)`` runs another tool in the host."""

    __slots__ = ("_rpc", "_state")
    _rpc: Rpc
    _state: State

    def __init__(self, rpc: Rpc, state: State) -> None:
        object.__setattr__(self, "_rpc", rpc)
        object.__setattr__(self, "_state", state)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def call_tool(args: dict[str, Any] | None = None) -> Any:
            return self._call(name, args or {})

        call_tool.__name__ = name
        return call_tool

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("tools is read-only")

    def _call(self, name: str, args: dict[str, Any]) -> Any:
        params = self._params(name, args)
        return self._taken(lambda: self._rpc("tools", "call", params))

    def _params(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        """A ``tools.call`` RPC's params: the caller's changes so far go with it (the host has the rest)."""
        return {"name": name, "args": args, "state_delta": state_delta(self._state)}

    def _taken(self, answer: Callable[[], Any]) -> Any:
        """The output ``answer()`` brings back, its state changes applied to the caller's state now."""
        try:
            result = answer()
        except ToolpenError as exc:
            raise ToolCallError(exc.kind, exc.message) from None
        apply_state_delta(self._state, result.get("state_delta") or {})
        return result.get("output")
