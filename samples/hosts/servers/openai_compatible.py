"""An OpenAI-compatible Chat Completions server on 127.0.0.1 that replays scripted model turns.

Each POST to ``/v1/chat/completions`` answers with the next scripted assistant message (a
dict, or a callable that builds one from the request body) and records the request, so a
test can check what the real ``openai`` client sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any

from . import JsonHandler, LoopbackServer

Turn = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


def tool_call(name: str, arguments: dict[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    """One assistant tool call as a model sends it (arguments as a JSON string)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id or name, "type": "function", "function": {"name": name, "arguments": text}}


def assistant(content: str | None = None, *calls: dict[str, Any]) -> dict[str, Any]:
    """A scripted assistant message, with tool calls when given."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return message


class ScriptedChatServer(LoopbackServer):
    """Serve scripted turns in order; ``requests`` holds every request body received."""

    def __init__(self, turns: Iterable[Turn]) -> None:
        self.turns = list(turns)
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        super().__init__(self._handler())

    def _next_message(self, body: dict[str, Any]) -> dict[str, Any] | None:
        with self._lock:
            self.requests.append(body)
            if not self.turns:
                return None
            turn = self.turns.pop(0)
        return turn(body) if callable(turn) else turn

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(JsonHandler):
            def do_POST(self) -> None:
                if self.path != "/v1/chat/completions":
                    self.send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                message = server._next_message(body)
                if message is None:
                    self.send_json(
                        500, {"error": {"message": "the script has no more turns", "type": "script"}}
                    )
                    return
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                self.send_json(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", ""),
                        "choices": [
                            {"index": 0, "finish_reason": finish, "logprobs": None, "message": message}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

        return Handler
