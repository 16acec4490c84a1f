"""Sessions, events and call records, shaped like ADK / CES (pydantic models).

The state they carry, its key scopes and a call's :class:`~runtime.state.StateDelta` are
``runtime/_state.py``. These models load with a store (``runtime/store/``), not with
``import runtime``: pydantic is a tenth of a second of start-up.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from runtime._state import StateDelta


class _Model(BaseModel):
    """The base of the session models: their validators are built on first use, not on import."""

    model_config = ConfigDict(defer_build=True)


class FunctionCall(_Model):
    """A model's request to run a tool."""

    id: str
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class FunctionResponse(_Model):
    """A tool's answer to a function call: ``{"result": ...}`` or ``{"error": {...}}``."""

    id: str
    name: str
    response: dict[str, Any] = Field(default_factory=dict)


class Part(_Model):
    """One part of a content: text, a function call or a function response."""

    text: str | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None


class Content(_Model):
    """A message: ``{role, parts}`` with role ``user`` or ``model``."""

    role: str
    parts: list[Part] = Field(default_factory=list)


class EventActions(_Model):
    """What an event did besides its content; ``state_delta`` in the :class:`StateDelta` shape."""

    state_delta: dict[str, Any] = Field(default_factory=lambda: StateDelta().to_dict())


class Event(_Model):
    """One entry in a session's history."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    author: str
    invocation_id: str = ""
    timestamp: float = Field(default_factory=time.time)
    content: Content | None = None
    actions: EventActions = Field(default_factory=EventActions)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of this event (parts keep only the field they carry)."""
        return self.model_dump(exclude_none=True)


class Session(_Model):
    """A conversation: its visible (merged) state and its events, oldest first."""

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=list)
    last_update_time: float
    state_sizes: dict[str, int] | None = Field(default=None, exclude=True, repr=False)
    """The bytes of each state value as compact JSON, when the store keeps them (a call's
    size checks then encode none of the values it leaves alone)."""

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of this session."""
        return self.model_dump(exclude_none=True)

    @classmethod
    def stored(
        cls,
        *,
        id: str,  # noqa: A002  (the field's name)
        app_name: str,
        user_id: str,
        last_update_time: float,
        state: dict[str, Any],
        state_sizes: dict[str, int],
        events: list[Event],
    ) -> Session:
        """A session as a store read it, its fields of their types already: not validated again
        (that would walk every key of its state, per call)."""
        return cls.model_construct(
            id=id,
            app_name=app_name,
            user_id=user_id,
            last_update_time=last_update_time,
            state=state,
            state_sizes=state_sizes,
            events=events,
        )


class SessionSummary(_Model):
    """A session without its state and events, as listed by a store."""

    id: str
    app_name: str
    user_id: str
    event_count: int
    last_update_time: float


CallStatus = Literal["started", "succeeded", "failed"]


class CallRecord(_Model):
    """A call keyed by (session_id, call_id): started, then finished with its stored result.

    A record still ``started`` when a retry arrives means an earlier run may have had effects
    but stored no result: its outcome is unknown and it must not run again.
    """

    session_id: str
    call_id: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    status: CallStatus = "started"
    result: dict[str, Any] | None = None
    started_at: float = Field(default_factory=time.time)
    finished_at: float | None = None

    @property
    def finished(self) -> bool:
        """True once a result is stored (success or failure)."""
        return self.status != "started"


def call_events(
    *,
    call_id: str,
    tool: str,
    args: dict[str, Any],
    response: dict[str, Any],
    delta: StateDelta,
    author: str,
    invocation_id: str = "",
) -> list[Event]:
    """The two events of one successful call, as ADK records them.

    A ``function_call`` event (role ``model``) and a ``function_response`` event (role ``user``)
    whose ``actions.state_delta`` is ``delta`` without its ``temp:`` keys; both authored by
    the agent.
    """
    called = Event(
        author=author,
        invocation_id=invocation_id,
        content=Content(
            role="model", parts=[Part(function_call=FunctionCall(id=call_id, name=tool, args=args))]
        ),
    )
    answered = Event(
        author=author,
        invocation_id=invocation_id,
        content=Content(
            role="user",
            parts=[Part(function_response=FunctionResponse(id=call_id, name=tool, response=response))],
        ),
        actions=EventActions(state_delta=delta.without_temp().to_dict()),
    )
    return [called, answered]


def state_change_event(delta: StateDelta, author: str, invocation_id: str = "") -> Event:
    """An event that only changes the state (a host's callbacks, ``toolpen run --context``):
    ``delta`` without its ``temp:`` keys."""
    actions = EventActions(state_delta=delta.without_temp().to_dict())
    return Event(author=author, invocation_id=invocation_id, actions=actions)
