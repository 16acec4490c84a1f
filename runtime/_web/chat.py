"""The playground's chat: the page's tools, or an exported app's agents, in conversation with a model.

Given an app, a turn is ``AppChat``'s (requests built from the export, model and tool callbacks,
guardrails, transfers, ``end_session``); given tool files, it is ``run_chat``'s over the page's
tools (as edited). The model is any OpenAI-compatible Chat Completions endpoint: the page gives
the model name, the base URL (else ``OPENAI_BASE_URL``) and the key (else ``OPENAI_API_KEY``);
the key is held in this process's memory for the conversation only: never written to a file,
never logged, never sent back to the page, and sent nowhere but to that endpoint. The
conversation lives in the session ``<page session>-chat`` until the page resets it or changes
the model, endpoint or agent.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runtime._redaction import Redactor
from sandbox.common.errors import InvalidArguments, ToolpenError

if TYPE_CHECKING:
    from runtime._runtime import Runtime
    from runtime.app._chat import AppChat

MODEL_TIMEOUT = 60.0
"""Seconds one model request may take."""


@dataclass(frozen=True)
class ChatSettings:
    """What the page's chat talks to."""

    model: str
    base_url: str | None = None
    api_key: str | None = None
    agent: str | None = None

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> ChatSettings:
        """The settings of a ``/api/chat`` request; ``InvalidArguments`` names what is missing."""
        model = str(body.get("model") or "").strip()
        if not model:
            raise InvalidArguments("name the model (as the endpoint calls it)")
        values = {
            key: str(body[key]).strip() or None for key in ("base_url", "api_key", "agent") if body.get(key)
        }
        return cls(model=model, **values)

    def client(self) -> Any:
        """An ``openai.OpenAI`` client for the endpoint; ``InvalidArguments`` without a key."""
        import openai

        key = self.api_key or os.environ.get("OPENAI_API_KEY", "")
        if not key:
            raise InvalidArguments(
                "give the endpoint's key on the page, or start toolpen web with OPENAI_API_KEY set"
            )
        url = self.base_url or os.environ.get("OPENAI_BASE_URL") or None
        return openai.OpenAI(base_url=url, api_key=key, timeout=MODEL_TIMEOUT, max_retries=0)


class ToolsChat:
    """A conversation of ``run_chat`` over a runtime's tools, its events shaped as ``AppChat``'s."""

    def __init__(self, rt: Runtime, client: Any, model: str, session_id: str) -> None:
        self.rt, self.client, self.model, self.session_id = rt, client, model, session_id
        self.messages: list[dict[str, Any]] = []

    def turn(self, text: str) -> dict[str, Any]:
        from runtime.protocols.chat import run_chat

        sent = [*self.messages, {"role": "user", "content": text}]
        try:
            run = run_chat(self.client, self.model, sent, self.rt, session_id=self.session_id)
        except ToolpenError as error:
            return {"user": text, "reply": "", "success": False, "error": error.to_dict(), "events": []}
        except Exception as error:  # the model's endpoint: unreachable, timed out, refused
            from runtime.app._chat import endpoint_failure

            failed = endpoint_failure(error).to_dict()
            return {"user": text, "reply": "", "success": False, "error": failed, "events": []}
        self.messages = [message for message in run.messages if message.get("role") != "system"]
        reply = str(run.final.get("content") or "")
        events = transcript_events(run.messages[len(sent) :])
        events.append({"kind": "reply", "agent": "", "text": reply})
        return {"user": text, "reply": reply, "success": True, "error": None, "events": events}


def transcript_events(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool calls of a transcript's new messages, each with the tool message answering it, as
    ``ChatEvent.to_dict`` shapes events."""
    answers = [message for message in messages if message.get("role") == "tool"]
    events = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            answer = answers.pop(0) if answers else {}
            data = {
                "tool": function.get("name"),
                "args": function.get("arguments"),
                "output": answer.get("content"),
            }
            events.append({"kind": "tool_call", "agent": "", **data})
    return events


SHORTEST_MASKED_KEY = 8
"""Keys shorter than this (test keys such as ``x``) are not masked: they would mask ordinary text."""


def redacted(answer: dict[str, Any], key: str | None) -> dict[str, Any]:
    """``answer`` with the key (in any encoding an error message may echo it in) masked."""
    if not key or len(key) < SHORTEST_MASKED_KEY:
        return answer
    return json.loads(Redactor((key,))(json.dumps(answer, ensure_ascii=False)))


class PageChat:
    """The page's one conversation; ``turn`` (re)starts it when the settings change."""

    def __init__(self, session: str) -> None:
        self.session = f"{session}-chat"
        self.settings: ChatSettings | None = None
        self.runtime: Runtime | None = None
        self.chat: AppChat | ToolsChat | None = None

    def turn(self, text: str, settings: ChatSettings, start: Any) -> dict[str, Any]:
        """One user turn; ``start(settings, session)`` makes ``(runtime, chat)`` for a new conversation."""
        if not text.strip():
            raise InvalidArguments("write a message")
        if self.chat is None or settings != self.settings:
            self.reset()
            self.runtime, self.chat = start(settings, self.session)
            self.settings = settings
        assert self.chat is not None and self.runtime is not None
        answer = self.chat.turn(text) if isinstance(self.chat, ToolsChat) else self.chat.turn(text).to_dict()
        stored = self.runtime.store.get_session(self.session, events=False)
        answer = {**answer, "session": self.session, "state": stored.state if stored else {}}
        return redacted(answer, settings.api_key)

    def reset(self) -> None:
        """End the conversation (its session stays in the store until the page resets it)."""
        if self.runtime is not None:
            self.runtime.close(close_store=False)  # the store is the page's
        self.runtime = self.chat = self.settings = None
