"""`toolpen web`'s editor as a developer uses it, in a real Chromium: the form keeps what was typed,
sub-forms for nested models, Save that asks, Cancel, keyboard shortcuts, diagnostics that jump."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.runtime.web.test_web import TOOL, browsing, serving

pytestmark = pytest.mark.slow  # `toolpen web` processes and a browser

ORDER = '''from pydantic import BaseModel


class Item(BaseModel):
    name: str
    qty: int = 1


class Customer(BaseModel):
    id: str
    tier: str = "basic"


def place_order(customer: Customer, items: list[Item], rush: bool = False) -> dict:
    """Place an order.

    Args:
        customer: Who orders.
        items: What is ordered.
        rush: Ship today.
    """
    return {"for": customer.id, "tier": customer.tier, "lines": [f"{i.qty}x{i.name}" for i in items], "rush": rush}
'''

SPIN = '''def spin(points: int = 1) -> int:
    """Never ends."""
    context.state["spun"] = points
    while True:
        points += 1
'''


def tool_folder(tmp_path: Path, **tools: str) -> Path:
    folder = tmp_path / "tools"
    folder.mkdir()
    for name, source in tools.items():
        (folder / f"{name}.py").write_text(source, encoding="utf-8")
    return folder


def open_tool(page: Any, label: str) -> None:
    """Open a tool file from the list, once its schema (and so its form) is shown."""
    page.click(f"#groups button[data-path$='{label}']")
    name = label.removesuffix(".py")
    page.wait_for_function(f"document.querySelector('#schema').textContent.includes({name!r})")


def test_the_form_keeps_its_values_across_parse_errors_and_nests_models(tmp_path: Path) -> None:
    folder = tool_folder(tmp_path, add_points=TOOL, place_order=ORDER)
    with serving(str(folder)) as server, browsing(server) as page:
        page.wait_for_selector("#form [name='customer']")
        page.fill("#form [name='customer']", "c-9")
        page.fill("#form [name='points']", "7")
        page.fill("#source", TOOL.replace("def add_points(", "def add_points(("))  # does not parse
        page.wait_for_selector("#diagnostics li.error")
        page.wait_for_selector("#form-note:not([hidden])")
        assert page.input_value("#form [name='customer']") == "c-9"
        page.fill("#source", TOOL.replace("points: int = 10)", "points: int = 10, note: str = '')"))
        page.wait_for_selector("#form [name='note']")
        assert (page.input_value("#form [name='customer']"), page.input_value("#form [name='points']")) == (
            "c-9",
            "7",
        )
        assert page.is_hidden("#form-note")
        page.keyboard.press("Control+Enter")
        page.wait_for_function("document.querySelector('#output').textContent.includes('c-9')")
        assert json.loads(page.text_content("#output")) == {"customer": "c-9", "total": 7}

        open_tool(page, "place_order.py")
        page.wait_for_selector("#form .field.object legend:has-text('customer')")
        page.fill("#form .field.object [name='id']", "c-1")
        for _ in range(2):
            page.click("#form .add-item")
        rows = page.locator("#form .field.array .item")
        assert rows.count() == 2
        rows.nth(0).locator("[name='name']").fill("tea")
        rows.nth(0).locator("[name='qty']").fill("3")
        rows.nth(1).locator("[name='name']").fill("")  # required: the form refuses to run
        page.click("#run")
        page.wait_for_function("document.querySelector('#status').textContent.includes('do not fit')")
        rows.nth(1).locator("[name='name']").fill("cake")
        page.click("#run")
        page.wait_for_function("document.querySelector('#output').textContent.includes('cake')")
        assert json.loads(page.text_content("#output")) == {
            "for": "c-1",
            "tier": "basic",
            "lines": ["3xtea", "1xcake"],
            "rush": False,
        }
        open_tool(page, "add_points.py")  # the first tool's values are still there
        assert page.input_value("#form [name='customer']") == "c-9"


def test_save_asks_before_writing_code_that_does_not_parse_or_over_a_file_changed_on_disk(
    tmp_path: Path,
) -> None:
    folder = tool_folder(tmp_path, add_points=TOOL)
    path = folder / "add_points.py"
    with serving(str(folder)) as server, browsing(server) as page:
        dialogs: list[str] = []
        answer = {"accept": False}

        def on_dialog(dialog: Any) -> None:
            dialogs.append(dialog.message)
            dialog.accept() if answer["accept"] else dialog.dismiss()

        page.on("dialog", on_dialog)
        broken = TOOL.replace("def add_points(", "def add_points((")
        page.fill("#source", broken)
        page.wait_for_selector("#diagnostics li.error")
        page.keyboard.press("Control+s")
        page.wait_for_timeout(300)
        assert dialogs and "does not parse" in dialogs[-1]
        assert path.read_text(encoding="utf-8") == TOOL, "dismissed: nothing written"

        edited = TOOL.replace("Add loyalty points", "Add points")
        page.fill("#source", edited)
        page.wait_for_selector("#diagnostics li:has-text('no problems')")
        outside = TOOL.replace("Add loyalty points", "Changed elsewhere")
        path.write_text(outside, encoding="utf-8")
        page.click("#save")
        page.wait_for_function("document.querySelector('#status').textContent.includes('not saved')")
        assert "changed on disk" in dialogs[-1]
        assert path.read_text(encoding="utf-8") == outside
        answer["accept"] = True
        page.click("#save")
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('saved')")
        assert path.read_text(encoding="utf-8") == edited

        token = {"X-Toolpen-Token": server.token}
        stale = requests.post(
            server.base + "/api/save",
            json={"path": str(path), "source": "x = 1\n", "expected": "not what is on disk"},
            headers=token,
            timeout=30,
        )
        assert stale.status_code == 422 and stale.json()["error"]["kind"] == "conflict"
        assert path.read_text(encoding="utf-8") == edited


def test_cancel_kills_a_running_call_and_the_session_is_unchanged(tmp_path: Path) -> None:
    folder = tool_folder(tmp_path, add_points=TOOL, spin=SPIN)
    with serving(str(folder)) as server, browsing(server) as page:
        page.fill("#form [name='customer']", "c-1")
        page.click("#run")
        page.wait_for_function("document.querySelector('#output').textContent.includes('total')")
        open_tool(page, "spin.py")
        page.click("#run")
        page.wait_for_selector("#cancel:not([hidden])")
        assert page.is_disabled("#run")
        page.click("#cancel")
        page.wait_for_function("document.querySelector('#error').textContent.includes('cancelled')")
        assert page.is_enabled("#run") and page.is_hidden("#cancel")
        timeline = requests.get(
            server.base + "/api/timeline", headers={"X-Toolpen-Token": server.token}, timeout=30
        ).json()
        assert timeline["state"] == {"points": 10}, "the cancelled call committed nothing"
        open_tool(page, "add_points.py")
        page.click("#run")  # the page runs again after a cancel
        page.wait_for_function("document.querySelector('#output').textContent.includes('20')")


def test_a_diagnostic_jumps_to_its_line_enums_show_their_choices_and_strict_only_with_responses(
    tmp_path: Path,
) -> None:
    tiered = TOOL.replace("points: int = 10)", 'points: int = 10, tier: Literal["gold", "silver"] = "gold")')
    folder = tool_folder(tmp_path, add_points="from typing import Literal\n\n" + tiered)
    with serving(str(folder)) as server, browsing(server) as page:
        page.wait_for_selector("#form [name='tier']")
        assert 'one of "gold", "silver"' in page.text_content("#form .field.enum small")
        assert page.is_hidden("#strict-label")
        page.select_option("#format", "responses")
        assert page.is_visible("#strict-label")
        page.fill(
            "#source", page.input_value("#source").replace("    total =", "    oops_undefined\n    total =")
        )
        page.wait_for_selector("#diagnostics li.error")
        line = int(page.get_attribute("#diagnostics li.error", "data-line") or 0)
        page.click("#diagnostics li.error")
        caret_line = page.evaluate(
            "(() => { const t = document.querySelector('#source');"
            " return t.value.slice(0, t.selectionStart).split('\\n').length; })()"
        )
        assert caret_line == line > 1
