"""A scripted OpenAI-compatible Chat Completions server on 127.0.0.1 (port 0) for the chat tests.

Each POST to ``/v1/chat/completions`` is answered by the next item of ``script``: an assistant
message (``{"content": ...}`` and/or ``{"tool_calls": [...]}``; ``call(name, args)`` builds
one), ``{"status": 500}`` for an HTTP error, or ``{"delay": seconds, ...}`` to answer late.
Every request body is recorded (``requests``), so tests assert what was sent.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.httpd import Handler, LocalServer, serve

PATH = "/v1/chat/completions"


def call(name: str, args: dict[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    """A tool call as a model sends it (``args`` a string: sent as it is, JSON or not)."""
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {
        "id": call_id or f"call_{name}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def says(text: str) -> dict[str, Any]:
    return {"content": text}


def calls(*items: dict[str, Any]) -> dict[str, Any]:
    return {"content": None, "tool_calls": list(items)}


@dataclass
class ModelServer:
    """The script still to answer and the requests received."""

    server: LocalServer
    script: list[dict[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"{self.server.url}/v1"

    def play(self, *items: dict[str, Any]) -> ModelServer:
        """Replace the script and forget the requests received."""
        self.script[:] = list(items)
        self.requests.clear()
        return self

    def answer(self, handler: Handler) -> None:
        self.requests.append(json.loads(handler.hit.body or b"{}"))
        item = dict(self.script.pop(0)) if self.script else {"content": "(the script has ended)"}
        time.sleep(item.pop("delay", 0))
        if "status" in item:
            handler.send_json(
                item["status"], {"error": {"message": "scripted failure", "type": "server_error"}}
            )
            return
        message = {"role": "assistant", "content": item.get("content"), **item}
        reason = "tool_calls" if message.get("tool_calls") else "stop"
        choice = {"index": 0, "message": message, "finish_reason": reason}
        body = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [choice],
        }
        handler.send_json(200, body)


@contextmanager
def model_server() -> Iterator[ModelServer]:
    """A running scripted server (``base_url`` for the client)."""
    holder: dict[str, ModelServer] = {}
    with serve({PATH: lambda handler: holder["model"].answer(handler)}) as server:
        holder["model"] = ModelServer(server)
        yield holder["model"]
