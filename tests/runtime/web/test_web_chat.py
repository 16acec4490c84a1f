"""The playground's chat in a real Chromium, against the scripted Chat Completions server on
127.0.0.1: an exported app's agents (callbacks, a transfer, a tool call and its state), the page's
tools, and the key kept out of every answer and every file."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.model_server import ModelServer, call, calls, model_server, says
from tests.runtime.web.test_web import SAMPLES, TOOL, browsing, serving

pytestmark = pytest.mark.slow  # `toolpen web` processes and a browser

KEY = "sk-page-secret-4242"


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with model_server() as server:
        yield server


def chat_with(page: Any, model: ModelServer, *, key: str = KEY) -> list[str]:
    """Open the chat pane and fill in the endpoint; returns the bodies of every API answer seen."""
    answers: list[str] = []
    page.on("response", lambda response: answers.append(response.text()) if "/api/" in response.url else None)
    page.click("#chat-pane summary")
    page.fill("#chat-model", "test-model")
    page.fill("#chat-base-url", model.base_url)
    page.fill("#chat-key", key)
    return answers


def say(page: Any, text: str, expect: str) -> None:
    page.fill("#chat-text", text)
    page.click("#chat-send")
    page.wait_for_selector(f"#chat-log li:has-text({expect!r})")
    page.wait_for_selector("#chat-send:enabled")


def test_an_apps_agents_chat_from_the_page_with_a_transfer_a_tool_call_and_its_state(
    model: ModelServer, tmp_path: Path
) -> None:
    app = tmp_path / "Customer_Service"
    shutil.copytree(SAMPLES / "apps" / "Customer_Service", app)
    store = f"sqlite:///{tmp_path}/web.db"
    with serving(str(app), "--fakes", store=store) as server, browsing(server) as page:
        answers = chat_with(page, model)
        assert page.is_visible("#chat-agent-label")
        say(page, "hello", "Olá! How can I help you today?")  # the before_agent callback answers
        model.play(
            calls(call("update_customer_loyalty_points", {"points_to_add": 50})), says("Done: 150 points.")
        )
        say(page, "please add 50 loyalty points", "Done: 150 points.")
        log = page.text_content("#chat-log")
        assert "transfer: Front Desk → Loyalty Desk" in log
        assert 'update_customer_loyalty_points({"points_to_add":50}) → ok' in log
        assert "Δ customer_profile" in log
        points = page.locator("#chat-log li.chat-tool_call:has-text('update_customer_loyalty_points')")
        points.locator("summary").click()
        assert '"loyalty_points": 150' in points.locator("pre").text_content()
        sent = model.requests[0]
        assert sent["model"] == "test-model" and sent["messages"][0]["role"] == "system"
        page.click("#chat-reset")
        page.wait_for_function("document.querySelectorAll('#chat-log li').length === 0")
    assert answers and all(KEY not in body for body in answers), "the key never comes back to the page"
    assert all(KEY.encode() not in path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())


def test_the_pages_tools_chat_and_a_failing_endpoint_is_a_clear_error(
    model: ModelServer, tmp_path: Path
) -> None:
    folder = tmp_path / "tools"
    folder.mkdir()
    (folder / "add_points.py").write_text(TOOL, encoding="utf-8")
    with serving(str(folder)) as server, browsing(server) as page:
        chat_with(page, model)
        assert page.is_hidden("#chat-agent-label")
        model.play(calls(call("add_points", {"customer": "c-3", "points": 5})), says("c-3 has 5 points."))
        say(page, "give c-3 five points", "c-3 has 5 points.")
        assert 'add_points({"customer": "c-3", "points": 5}) → ok' in page.text_content("#chat-log")
        assert page.text_content("#timeline-session") == "of session web-chat"
        model.play({"status": 500})
        say(page, "again", "model_error")
        page.fill("#chat-key", "")
        page.fill("#chat-text", "no key now")
        page.click("#chat-send")
        page.wait_for_function("document.querySelector('#status').textContent.includes('key')")
