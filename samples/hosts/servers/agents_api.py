"""A local server for the Agents API sessions endpoints, as the pinned ``openai`` SDK calls them.

Routes: ``GET /v1/agents/sessions/{id}`` (the session), ``POST /v1/agents/sessions/{id}/events``
(input events: a user message starts a turn, tool results answer pending actions) and
``GET /v1/agents/sessions/{id}/events`` (server-sent events from the moment of subscribing).

A session follows a script: each step is a list of function calls (they become
``required_actions``) or the turn's final text (a string, or a callable that builds it from
the tool results received so far). Posts with an ``Idempotency-Key`` seen before are accepted
and not applied again. Every post is recorded for the tests. ``streams_to_drop`` makes the
next event streams end before they deliver anything (a dropped connection).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from . import JsonHandler, LoopbackServer

MAX_EVENT_BYTES = 4_194_304
Step = list[dict[str, Any]] | str | Callable[[list[dict[str, Any]]], str]
SESSION_PATH = re.compile(r"^/v1/agents/sessions/([\w-]+)(/events)?(?:\?.*)?$")


def call(name: str, **arguments: Any) -> dict[str, Any]:
    """A scripted function call."""
    return {"name": name, "arguments": arguments}


@dataclass
class ScriptedSession:
    id: str
    script: list[Step]
    status: str = "idle"
    turn_id: str | None = None
    turns: int = 0
    calls: int = 0
    required_actions: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)

    def snapshot(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "agent.session",
            "status": self.status,
            "required_actions": [dict(action) for action in self.required_actions],
            "created_at": 0,
            "last_active_at": int(time.time()),
            "metadata": {},
            "vault_ids": [],
            "error": None,
        }


@dataclass
class Post:
    """One POST to the events endpoint, as received."""

    session_id: str
    idempotency_key: str | None
    beta: str | None
    events: list[dict[str, Any]]
    duplicate: bool


class AgentsApiServer(LoopbackServer):
    """Serve scripted agent sessions on 127.0.0.1 (port chosen by the system)."""

    def __init__(self) -> None:
        self.sessions: dict[str, ScriptedSession] = {}
        self.posts: list[Post] = []
        self._seen_keys: set[str] = set()
        self._changed = threading.Condition()
        self._closing = False
        self.streams_to_drop = 0
        """The next this many event streams end before sending any event (dropped streams)."""
        self.streams_opened = 0
        super().__init__(self._handler())

    def __exit__(self, *exc: object) -> None:
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        super().__exit__(*exc)

    def add_session(self, session_id: str, script: Iterable[Step]) -> ScriptedSession:
        session = ScriptedSession(session_id, list(script))
        self.sessions[session_id] = session
        return session

    def tool_results(self, session_id: str) -> list[dict[str, Any]]:
        """The tool results a session accepted, in order."""
        return list(self.sessions[session_id].results)

    # State changes, always under self._changed.

    def _emit(self, session: ScriptedSession, kind: str) -> None:
        session.events.append(
            {"event_id": f"evt_{len(session.events)}", "type": kind, "session": session.snapshot()}
        )
        self._changed.notify_all()

    def _advance(self, session: ScriptedSession) -> None:
        step = session.script.pop(0) if session.script else "(the script is over)"
        if isinstance(step, list):
            session.required_actions = []
            for scripted in step:
                session.calls += 1
                session.required_actions.append(
                    {
                        "type": "function_call",
                        "turn_id": session.turn_id,
                        "call_id": f"call_{session.calls}",
                        "name": scripted["name"],
                        "arguments": scripted["arguments"],
                    }
                )
            session.status = "requires_action"
            self._emit(session, "agent.session.requires_action")
            return
        session.messages.append(step(session.results) if callable(step) else step)
        session.status = "idle"
        self._emit(session, "agent.session.idle")

    def _apply(self, session: ScriptedSession, event: dict[str, Any]) -> str | None:
        """Apply one input event; an error message when it is refused."""
        kind = event.get("type")
        if kind == "agent.session.input.message":
            if session.status != "idle":
                return f"session {session.id} is {session.status}, not idle"
            session.turns += 1
            session.turn_id = f"turn_{session.turns}"
            session.status = "in_progress"
            self._emit(session, "agent.session.in_progress")
            self._advance(session)
            return None
        if kind == "agent.session.input.tool_result":
            pending = [
                a
                for a in session.required_actions
                if (a["turn_id"], a["call_id"]) == (event.get("turn_id"), event.get("call_id"))
            ]
            if not pending:
                return f"no pending action for turn {event.get('turn_id')} call {event.get('call_id')}"
            if len(json.dumps(event).encode()) > MAX_EVENT_BYTES:
                return "tool result too large"
            session.required_actions.remove(pending[0])
            session.results.append(event)
            if not session.required_actions:
                session.status = "in_progress"
                self._advance(session)
            return None
        return f"unsupported event type {kind!r}"

    def _events_after(self, session: ScriptedSession, sent: int) -> list[dict[str, Any]] | None:
        """Wait for events past the first ``sent``; None once the server closes."""
        with self._changed:
            self._changed.wait_for(lambda: self._closing or len(session.events) > sent)
            return None if self._closing else session.events[sent:]

    def _post(self, session: ScriptedSession, headers: Any, body: dict[str, Any]) -> str | None:
        key = headers.get("Idempotency-Key")
        with self._changed:
            duplicate = key is not None and key in self._seen_keys
            events = body.get("events") or []
            self.posts.append(Post(session.id, key, headers.get("OpenAI-Beta"), events, duplicate))
            if duplicate:
                return None
            for event in events:
                error = self._apply(session, event)
                if error is not None:
                    return error
            if key is not None:
                self._seen_keys.add(key)
            return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(JsonHandler):
            protocol_version = "HTTP/1.1"

            def _route(self) -> tuple[ScriptedSession, bool] | None:
                match = SESSION_PATH.match(self.path)
                session = server.sessions.get(match.group(1)) if match else None
                if match is None or session is None:
                    self.send_json(
                        404, {"error": {"message": f"no such session: {self.path}", "type": "not_found"}}
                    )
                    return None
                return session, match.group(2) is not None

            def do_GET(self) -> None:
                routed = self._route()
                if routed is None:
                    return
                session, events = routed
                if not events:
                    with server._changed:
                        self.send_json(200, session.snapshot())
                    return
                self._stream(session)

            def do_POST(self) -> None:
                routed = self._route()
                if routed is None:
                    return
                session, events = routed
                length = int(self.headers.get("Content-Length", 0))
                if length > MAX_EVENT_BYTES + 65_536:
                    self.rfile.read(length)
                    self.send_json(
                        413, {"error": {"message": "request too large", "type": "invalid_request_error"}}
                    )
                    return
                body = json.loads(self.rfile.read(length) or b"{}")
                error = server._post(session, self.headers, body) if events else "POST needs /events"
                if error is None:
                    self.send_response(202)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                else:
                    self.send_json(400, {"error": {"message": error, "type": "invalid_request_error"}})

            def _stream(self, session: ScriptedSession) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                with server._changed:
                    sent = len(session.events)
                    server.streams_opened += 1
                    drop = server.streams_to_drop > 0
                    server.streams_to_drop -= drop
                if drop:  # the headers went out; the stream ends before any event
                    return
                try:
                    while True:
                        fresh = server._events_after(session, sent)
                        if fresh is None:
                            return
                        sent += len(fresh)
                        for event in fresh:
                            self.wfile.write(
                                f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                            )
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return

        return Handler
