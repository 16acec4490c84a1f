"""What a given context makes of the stored session before a call, so that nothing given is ignored.

The engine's, used by `toolpen run --context` and the playground's runs (`toolpen web`):

- The session is ``--session``, else the context's ``session_id``, else ``local``; both given and
  different is refused.
- ``--fresh`` deletes the session first (its app: and user: keys stay: other sessions share them).
- The context's ``state`` is applied over the stored state: the keys whose stored value differs
  are written and recorded as a state change (an event authored ``user``), so the tool sees them.
- The context's ``events`` seed a new session; a stored session must already begin with them
  (the tool sees the stored history), else the run is refused with the way out.
- ``invocation_id``, ``user_content`` and the rest reach the tool through the call's context
  (``call_context``: without the events, which the stored session now holds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime.store._base import session_taken
from sandbox.common.errors import InvalidArguments

if TYPE_CHECKING:
    from runtime._runtime import Runtime
    from runtime._session import Event

DEFAULT_SESSION = "local"
CONTEXT_AUTHOR = "user"
"""Who the state change and seeded events are recorded as coming from (the person running the CLI)."""


def session_for(given: str | None, context: dict[str, Any]) -> str:
    """The session a run uses: ``--session``, else the context's ``session_id``, else ``local``."""
    named = context.get("session_id")
    if named is not None and (not isinstance(named, str) or not named):
        raise InvalidArguments("--context: session_id must be a non-empty string")
    if given is not None and named is not None and given != named:
        raise InvalidArguments(
            f"--context names session {named!r} but --session is {given!r}: give one of them, or the same"
        )
    return given or named or DEFAULT_SESSION


def prepare_session(rt: Runtime, session_id: str, context: dict[str, Any], *, fresh: bool) -> None:
    """Make the stored session hold what ``context`` says, or raise ``InvalidArguments`` saying why not."""
    from runtime._session import state_change_event
    from runtime._state import StateDelta

    given_state = context.get("state") or {}
    if not isinstance(given_state, dict):
        raise InvalidArguments("--context: state must be a JSON object")
    given_events = _events(context.get("events"))
    store = rt.store
    if fresh:
        store.delete_session(session_id)
    with store.lock(session_id):
        stored = store.get_session(session_id)
        if stored is None:
            store.create_session(rt.app_name, rt.user_id, session_id, given_state)
            if given_events:
                _record(rt, session_id, StateDelta(), [_event(event) for event in given_events])
            return
        if (stored.app_name, stored.user_id) != (rt.app_name, rt.user_id):
            raise session_taken(session_id)
        _check_history(session_id, [_shape(event.to_dict()) for event in stored.events], given_events)
        changed = {
            key: value
            for key, value in given_state.items()
            if not key.startswith("temp:") and (key not in stored.state or stored.state[key] != value)
        }
        if changed:
            delta = StateDelta(changed, [])
            _record(rt, session_id, delta, [state_change_event(delta, CONTEXT_AUTHOR)])


def call_context(context: dict[str, Any]) -> dict[str, Any]:
    """The context a call takes once ``prepare_session`` ran: without ``events``, so that the tool
    sees the stored history (a call's given events would stand in for it)."""
    return {key: value for key, value in context.items() if key != "events"}


def _events(value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(event, dict) for event in value):
        raise InvalidArguments("--context: events must be a list of event objects")
    for index, event in enumerate(value):
        try:
            _event(event)
        except ValueError as error:  # pydantic's ValidationError
            first = str(error).splitlines()[1:3]
            raise InvalidArguments(f"--context: events[{index}] is not an event: {' '.join(first)}") from None
    return value


def _event(data: dict[str, Any]) -> Event:
    from runtime._session import Event

    return Event.model_validate(data)


def _shape(event: dict[str, Any]) -> dict[str, Any]:
    """What makes two events the same for this check: who said what, and what it did (not ids or times)."""
    full = _event(event).to_dict()
    return {key: full.get(key) for key in ("author", "content", "actions")}


def _check_history(session_id: str, stored: list[dict[str, Any]], given: list[dict[str, Any]]) -> None:
    if not given:
        return
    wanted = [_shape(event) for event in given]
    if stored[: len(wanted)] != wanted:
        raise InvalidArguments(
            f"session {session_id!r} is stored with {len(stored)} event(s) that do not begin with the "
            f"{len(wanted)} event(s) of --context, and the tool sees the stored ones: pass --fresh to start "
            "the session anew from --context, or name another --session"
        )


def _record(rt: Runtime, session_id: str, delta: Any, events: list[Event]) -> None:
    """Commit ``delta`` and ``events`` the way a call does (atomically), as the pseudo-call ``--context``."""
    from runtime._results import ToolResult
    from runtime._unit_of_work import new_id

    call_id = new_id("context")
    rt.store.begin_call(session_id, call_id, "--context", {})
    result = ToolResult(True, state_delta=delta.to_dict(), call_id=call_id, session_id=session_id)
    rt.store.commit_call(session_id, call_id, delta, events, result.stored())
