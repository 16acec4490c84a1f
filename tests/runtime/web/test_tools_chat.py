"""The playground's chat over the page's tools (``ToolsChat``) against the scripted Chat Completions
server: an endpoint's failure is the same ``model_error`` an app's chat gives (class, HTTP status)."""

from __future__ import annotations

import openai

from runtime import Runtime
from runtime._web.chat import ToolsChat
from tests.model_server import model_server, says


def test_a_failing_endpoint_is_a_model_error_naming_its_status() -> None:
    with model_server() as model, Runtime(store="memory://") as rt:
        client = openai.OpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0)
        chat = ToolsChat(rt, client, "test-model", "tools-chat")
        model.play({"status": 500})
        failed = chat.turn("hello")
        assert failed["success"] is False and failed["error"]["kind"] == "model_error"
        assert (
            "HTTP 500" in failed["error"]["message"] and "InternalServerError" in failed["error"]["message"]
        )
        model.play(says("back"))
        assert chat.turn("hello")["reply"] == "back"
