"""`toolpen web`: the playground page, served by the real command and driven in a real headless Chromium.

The security checks (token, Host, Origin, --public) are plain HTTP requests; the page's behaviour is
tested in Debian's chromium through Playwright (skipped, saying why, where /usr/bin/chromium is absent).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.slow  # every test starts `toolpen web` as a process

TOOLPEN = [sys.executable, "-c", "from runtime.cli import main; main()"]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

TOOL = '''def add_points(customer: str, points: int = 10) -> dict:
    """Add loyalty points to a customer.

    Args:
        customer: The customer id.
        points: How many points to add.
    """
    print(f"adding {points} for {customer}")
    total = context.state.get("points", 0) + points
    context.state["points"] = total
    return {"customer": customer, "total": total}
'''

EDITED = TOOL.replace("points: int = 10)", 'points: int = 10, tier: str = "gold")').replace(
    "    total =", "    oops_undefined\n    total ="
)
"""Adds a parameter (the schema changes) and an undefined name on line 9 (a diagnostic there)."""

FAILING = TOOL.replace("    total =", '    raise ValueError("no such customer")\n    total =')
"""Fails on line 9."""


class Server:
    """A running `toolpen web` process and the URL it printed."""

    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url
        self.token = url.split("token=", 1)[1]
        self.base = url.split("/?", 1)[0]


def start(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    return subprocess.Popen(
        [*TOOLPEN, "web", "--no-browser", "--port", "0", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )


@pytest.fixture
def tool_file(tmp_path: Path) -> Path:
    path = tmp_path / "add_points.py"
    path.write_text(TOOL, encoding="utf-8")
    return path


@pytest.fixture
def server(tool_file: Path) -> Iterator[Server]:
    process = start("--store", "memory://", str(tool_file.parent))
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://\S+", line)
    if not found:
        process.kill()
        raise AssertionError(f"no URL printed: {line!r} {process.stderr.read()!r}")
    yield Server(process, found.group(0))
    process.terminate()
    process.wait(timeout=10)


def get(server: Server, path: str, **headers: str) -> requests.Response:
    return requests.get(server.base + path, headers=headers, timeout=30)


def test_a_request_without_the_token_is_refused(server: Server) -> None:
    for headers in ({}, {"X-Toolpen-Token": "wrong"}, {"Cookie": "toolpen_web_token=wrong"}):
        response = get(server, "/api/tools", **headers)
        assert response.status_code == 403
        assert response.json()["error"]["kind"] == "unauthorized"
    assert get(server, "/").status_code == 403
    assert get(server, "/static/app.js").status_code == 403
    assert get(server, "/api/tools", **{"X-Toolpen-Token": server.token}).status_code == 200


def test_the_token_in_the_url_sets_a_cookie_that_serves_the_api(server: Server) -> None:
    with requests.Session() as browser:
        page = browser.get(server.url, timeout=30)
        assert page.status_code == 200 and "toolpen web" in page.text
        listed = browser.get(server.base + "/api/tools", timeout=30).json()["tools"]
    assert [Path(item["path"]).name for item in listed] == ["add_points.py"]


def test_a_foreign_host_or_origin_is_refused(server: Server) -> None:
    token = {"X-Toolpen-Token": server.token}
    rebound = get(server, "/api/tools", Host="attacker.example:8765", **token)
    assert rebound.status_code == 403 and rebound.json()["error"]["kind"] == "bad_host"
    cross = requests.post(
        server.base + "/api/run",
        json={"source": TOOL, "args": {"customer": "c-1"}},
        headers={"Origin": "http://attacker.example", **token},
        timeout=30,
    )
    assert cross.status_code == 403 and cross.json()["error"]["kind"] == "bad_origin"
    same = get(server, "/api/tools", Origin=server.base, **token)
    assert same.status_code == 200
    assert get(server, "/api/tools", Host="localhost", **token).status_code == 200


def test_a_non_loopback_address_needs_public(tool_file: Path) -> None:
    process = start("--host", "0.0.0.0", str(tool_file))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert "--public" in err


def test_an_unusable_store_is_one_line_and_exit_2(tool_file: Path) -> None:
    process = start(str(tool_file), "--store", "bogus://nowhere")
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert err.startswith("error: unknown store URL") and "Traceback" not in err


def test_save_writes_only_the_files_the_page_was_started_with(server: Server, tool_file: Path) -> None:
    token = {"X-Toolpen-Token": server.token}
    path = get(server, "/api/tools", **token).json()["tools"][0]["path"]
    saved = requests.post(
        server.base + "/api/save", json={"path": path, "source": EDITED}, headers=token, timeout=30
    )
    assert saved.status_code == 200 and tool_file.read_text(encoding="utf-8") == EDITED
    other = tool_file.parent / "other.py"
    refused = requests.post(
        server.base + "/api/save", json={"path": str(other), "source": "x = 1\n"}, headers=token, timeout=30
    )
    assert refused.status_code == 422 and refused.json()["error"]["kind"] == "invalid_arguments"
    assert not other.exists()


@pytest.fixture
def page(server: Server) -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium) to run the browser tests"
        )
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1500, "height": 1000})
            tab.set_default_timeout(30_000)
            tab.goto(server.url)
            tab.wait_for_selector("#tools button.active")
            tab.wait_for_function("document.querySelector('#schema').textContent.includes('add_points')")
            yield tab
        finally:
            browser.close()


def test_editing_changes_the_schema_and_marks_the_diagnostic_line(page: Any, tool_file: Path) -> None:
    assert "tier" not in page.text_content("#schema")
    page.fill("#source", EDITED)
    page.wait_for_selector("#diagnostics li.error[data-line='9']")
    assert "oops_undefined" in page.text_content("#diagnostics li.error")
    assert page.get_attribute("#gutter div[data-line='9']", "class") == "error"
    page.wait_for_function("document.querySelector('#schema').textContent.includes('tier')")
    page.select_option("#format", "responses")
    page.check("#strict")
    assert '"strict": true' in page.text_content("#schema")
    page.select_option("#format", "mcp")
    assert "inputSchema" in page.text_content("#schema")
    assert page.input_value("#form [name='tier']") == "gold"
    assert tool_file.read_text(encoding="utf-8") == TOOL, "nothing is saved without an explicit save"
    page.click("#save")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('saved')")
    assert tool_file.read_text(encoding="utf-8") == EDITED


def test_the_form_runs_the_tool_and_shows_output_logs_and_state_diff(page: Any) -> None:
    assert page.input_value("#form [name='points']") == "10"
    page.fill("#form [name='customer']", "c-7")
    page.fill("#form [name='points']", "5")
    page.click("#run")
    page.wait_for_selector("#result-status.ok")
    assert '"total": 5' in page.text_content("#output")
    assert "adding 5 for c-7" in page.text_content("#logs")
    row = page.locator("#diff tbody tr.added")
    assert row.locator("td").all_text_contents() == ["points", "", "5"]
    assert '"points": 5' in page.text_content("#delta")
    assert re.fullmatch(r"[\d.]+ ms", page.text_content("#duration"))
    page.click("#raw-toggle")
    assert '"customer": "c-7"' in page.input_value("#raw-args")
    page.fill("#raw-args", '{"customer": "c-8", "points": 2}')
    page.click("#run")
    page.wait_for_function("document.querySelector('#output').textContent.includes('c-8')")
    changed = page.locator("#diff tbody tr.changed td").all_text_contents()
    assert changed == ["points", "5", "7"]


def test_a_failing_tool_highlights_its_line_and_the_timeline_grows(page: Any) -> None:
    page.fill("#form [name='customer']", "c-1")
    page.click("#run")
    page.wait_for_selector("#result-status.ok")
    page.wait_for_function("document.querySelectorAll('#timeline li').length > 0")
    first = page.locator("#timeline li").count()
    page.fill("#source", FAILING)
    page.wait_for_timeout(400)
    page.fill("#form [name='customer']", "c-1")
    page.click("#run")
    page.wait_for_selector("#result-status.failed")
    assert "line 9" in page.text_content("#error")
    assert "no such customer" in page.text_content("#error")
    assert page.get_attribute("#gutter div[data-line='9']", "class") == "failed"
    assert "raise ValueError" in page.text_content("#highlight .hl-failed")
    page.fill("#source", TOOL)
    page.wait_for_timeout(400)
    page.fill("#form [name='customer']", "c-1")
    page.click("#run")
    page.wait_for_selector("#result-status.ok")
    assert not page.locator("#gutter div.failed").count()
    page.wait_for_function(f"document.querySelectorAll('#timeline li').length > {first}")
    assert "Δ points" in page.text_content("#timeline")
    page.click("#reset")
    page.wait_for_function("document.querySelectorAll('#timeline li').length === 0")


def test_a_change_made_to_the_file_outside_the_page_is_picked_up(page: Any, tool_file: Path) -> None:
    tool_file.write_text(EDITED, encoding="utf-8")
    page.wait_for_function("document.querySelector('#source').value.includes('oops_undefined')")
    page.wait_for_selector("#diagnostics li.error[data-line='9']")
    page.fill("#source", TOOL + "\n# my edit\n")
    tool_file.write_text(FAILING, encoding="utf-8")
    page.wait_for_function("document.querySelector('#status').textContent.includes('changed on disk')")
    assert "# my edit" in page.input_value("#source"), "unsaved edits are kept"
