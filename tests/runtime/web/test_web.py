"""`toolpen web`: the playground page, served by the real command and driven in a real headless Chromium.

The security checks (token, Host, Origin, --public) are plain HTTP requests; the page's behaviour is
tested in Debian's chromium through Playwright (skipped, saying why, where /usr/bin/chromium is absent).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests

pytestmark = pytest.mark.slow  # every test starts `toolpen web` as a process

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
TOOLPEN = [sys.executable, "-c", "from runtime._cli import main; main()"]
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
        self.base = re.split(r"/[?#]", url, maxsplit=1)[0]


def start(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
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


@contextmanager
def serving(*args: str, store: str = "memory://") -> Iterator[Server]:
    """`toolpen web ARGS` (with a memory store unless told), stopped on exit."""
    process = start("--store", store, *args)
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://\S+", line)
    if not found:
        process.kill()
        raise AssertionError(f"no URL printed: {line!r} {process.stderr.read()!r}")
    try:
        yield Server(process, found.group(0))
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def server(tool_file: Path) -> Iterator[Server]:
    with serving(str(tool_file.parent)) as running:
        yield running


def get(server: Server, path: str, **headers: str) -> requests.Response:
    return requests.get(server.base + path, headers=headers, timeout=30)


def test_a_request_without_the_token_is_refused(server: Server) -> None:
    for headers in ({}, {"X-Toolpen-Token": "wrong"}, {"Cookie": f"toolpen_web_token={server.token}"}):
        response = get(server, "/api/tools", **headers)
        assert response.status_code == 403
        assert response.json()["error"]["kind"] == "unauthorized"
    listed = get(server, "/api/tools", **{"X-Toolpen-Token": server.token}).json()["tools"]
    assert [Path(item["path"]).name for item in listed] == ["add_points.py"]


def test_the_page_holds_no_token_and_sets_no_cookie(server: Server) -> None:
    for path in ("/", "/?token=" + server.token, "/static/app.js"):
        response = get(server, path)
        assert response.status_code == 200 and server.token not in response.text
        assert "set-cookie" not in response.headers


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


@contextmanager
def browsing(server: Server, *, keep_csp: bool = False) -> Iterator[Any]:
    """A headless chromium tab on the page, once its file list is shown. Playwright's
    ``wait_for_function`` evaluates strings, which the page's CSP forbids: the CSP is bypassed
    unless ``keep_csp`` (then wait with selectors)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium) to run the browser tests"
        )
    playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            viewport = {"width": 1500, "height": 1000}
            tab = browser.new_context(viewport=viewport, bypass_csp=not keep_csp).new_page()
            tab.set_default_timeout(30_000)
            tab.requested = []
            tab.on("request", lambda request: tab.requested.append(request.url))
            tab.goto(server.url)
            tab.wait_for_selector("#groups button.active")
            yield tab
        finally:
            browser.close()


@pytest.fixture
def page(server: Server) -> Iterator[Any]:
    with browsing(server) as tab:
        tab.wait_for_function("document.querySelector('#schema').textContent.includes('add_points')")
        yield tab


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
    assert page.locator("#disk-note").is_hidden()
    page.fill("#source", TOOL + "\n# my edit\n")
    assert page.locator("#groups button.active.dirty").count() == 1
    tool_file.write_text(FAILING, encoding="utf-8")
    page.wait_for_selector("#disk-note:not([hidden])")
    assert "# my edit" in page.input_value("#source"), "unsaved edits are kept"
    assert "changed on disk" in page.text_content("#disk-note")
    assert tool_file.read_text(encoding="utf-8") == FAILING, "the page saves only when asked"
    page.click("#load-disk")
    assert "raise ValueError" in page.input_value("#source") and "# my edit" not in page.input_value(
        "#source"
    )
    assert page.locator("#disk-note").is_hidden() and page.locator("#groups button.dirty").count() == 0


def test_python_is_highlighted_by_the_shipped_tokenizer_and_nothing_leaves_the_machine(page: Any) -> None:
    source = (
        'def f(x: int) -> str:\n    """Doc\n    more."""\n    return f"{x!r} # not a comment"  # a comment\n'
    )
    page.fill("#source", source)
    page.wait_for_function("document.querySelector('#highlight .token.keyword') !== null")
    assert page.locator("#highlight .token.keyword").all_text_contents()[:2] == ["def", "return"]
    assert page.locator("#highlight .token.function").all_text_contents() == ["f"]
    assert page.locator("#highlight .token.builtin").all_text_contents() == ["int", "str"]
    docstring = page.locator("#highlight .token.triple-quoted-string").all_text_contents()
    assert docstring == ['"""Doc', '    more."""'], "a token over two lines is cut at the newline"
    assert page.locator("#highlight .token.comment").all_text_contents() == ["# a comment"]
    assert "# not a comment" in "".join(
        page.locator("#highlight .token.string-interpolation").all_text_contents()
    )
    assert page.text_content("#highlight") == source + "\n", "the source, and a newline sizing the last line"
    assert all(url.startswith("http://127.0.0.1") for url in page.requested), page.requested
    assert any("/static/vendor/prism/prism-python.min.js" in url for url in page.requested)


@pytest.fixture
def samples_copy(tmp_path: Path) -> Path:
    """samples/ copied (saving from the page must not touch the repository)."""
    copy = tmp_path / "samples"
    shutil.copytree(SAMPLES, copy)
    return copy


def test_a_turn_file_runs_with_its_callbacks_and_fakes_and_shows_steps_and_the_state_diff(
    samples_copy: Path,
) -> None:
    with serving(str(samples_copy)) as server, browsing(server) as page:
        listed = {
            kind: page.locator(f"#groups ul[data-kind='{kind}'] button").all_text_contents()
            for kind in ("tool", "callbacks", "fakes", "turn")
        }
        assert {"issue_refund.py", "summarize_cart.py"} <= set(listed["tool"])
        assert "crm_server.py" not in listed["tool"], "a program is not a tool"
        assert listed["callbacks"] == ["model_guard.py", "redact_emails.py", "refund_guard.py"]
        assert listed["fakes"] == ["crm_service.py"]
        assert listed["turn"] == ["customer_service_turn.json", "refund_turn.json"]
        page.click("#groups button:text-is('refund_turn.json')")
        page.wait_for_selector("#turn-pane:not([hidden])")
        assert page.locator("#try").is_hidden()
        page.click("#run-turn")
        page.wait_for_selector("#turn-status.ok")
        steps = page.locator("#steps > li")
        assert steps.count() == 4
        assert "faked" in steps.nth(0).text_content(), "the fake answered summarize_cart"
        assert "RF-0001" in steps.nth(1).text_content() and "Δ refunds" in steps.nth(1).text_content()
        assert "needs_approval" in steps.nth(2).text_content(), "refund_guard refused the 500 EUR refund"
        assert "output from before_tool_callback" in steps.nth(2).text_content()
        assert "output from" not in steps.nth(1).text_content()
        assert "Δ refusals" in steps.nth(2).text_content()
        assert "[email redacted]" in steps.nth(3).text_content(), "redact_emails changed the tool's output"
        assert "output from after_tool_callback" in steps.nth(3).text_content()
        hooks = page.text_content("#turn-hooks")
        assert "before_tool: refund_guard.py" in hooks and "fake: crm_service.py" in hooks
        rows = {
            row.locator("td").first.text_content(): row.get_attribute("class")
            for row in page.locator("#turn-diff tbody tr").all()
        }
        assert rows == {"customer_profile": "changed", "refunds": "added", "refusals": "added"}
        page.wait_for_function(  # the timeline loads after the steps are shown
            "document.querySelector('#timeline-session').textContent.includes('refund-demo') && "
            "document.querySelectorAll('#timeline li').length === 8"
        )

        # An unsaved edit of a callback is what the next turn runs; the file stays as it was.
        guard = samples_copy / "callbacks" / "refund_guard.py"
        on_disk = guard.read_text(encoding="utf-8")
        page.click("#groups button:text-is('refund_guard.py')")
        page.wait_for_selector("#hooks-pane:not([hidden])")
        page.wait_for_function("document.querySelector('#source').value.includes('DEFAULT_LIMIT = 100')")
        page.fill("#source", on_disk.replace("DEFAULT_LIMIT = 100", "DEFAULT_LIMIT = 1000"))
        page.click("#groups button:text-is('refund_turn.json')")
        page.click("#run-turn")
        page.wait_for_function(
            "document.querySelectorAll('#steps > li').length === 4 && "
            "document.querySelector('#steps > li:nth-child(3)').textContent.includes('RF-0002')"
        )
        assert guard.read_text(encoding="utf-8") == on_disk

        # A turn written in the page: every tool of the page, and the calls it makes.
        page.click("#new-turn")
        assert '"calls"' in page.input_value("#source") and page.locator("#save").is_disabled()
        template = json.loads(page.input_value("#source"))
        named = [*template.get("callbacks", []), *template.get("fakes", [])]
        assert named and all(not Path(item).is_absolute() and Path(item).is_file() for item in named)
        script = {
            "session": "mine",
            "context": {"user_content": {"role": "user", "parts": [{"text": "hi there"}]}},
            "calls": [{"tool": "get_last_user_utterance", "args": {}}, {"tool": "no_such_tool", "args": {}}],
        }
        page.fill("#source", json.dumps(script))
        page.click("#run-turn")
        page.wait_for_selector("#turn-status.failed")
        assert "hi there" in page.locator("#steps > li").nth(0).text_content()
        assert "no_such_tool" in page.locator("#steps > li.failed").text_content()
        page.wait_for_function("document.querySelector('#timeline-session').textContent.includes('mine')")


def test_a_turn_may_name_only_files_of_the_page(samples_copy: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("def secret() -> str:\n    return 'hidden'\n", encoding="utf-8")
    with serving(str(samples_copy / "get_customer.py")) as server:
        token = {"X-Toolpen-Token": server.token}
        script = {"tools": [str(secret)], "calls": [{"tool": "secret"}]}
        answer = requests.post(
            server.base + "/api/turn", json={"script": json.dumps(script)}, headers=token, timeout=60
        ).json()
        assert answer["error"]["kind"] == "invalid_arguments" and answer["steps"] == []
        assert "not a file of the paths" in answer["error"]["message"]
        read = requests.get(
            server.base + "/api/file", params={"path": str(secret)}, headers=token, timeout=30
        )
        assert read.status_code == 422 and "hidden" not in read.text


def test_an_exported_app_is_served_with_its_callbacks_fakes_and_declared_defaults(tmp_path: Path) -> None:
    app = tmp_path / "Customer_Service"
    shutil.copytree(SAMPLES / "apps" / "Customer_Service", app)
    turn = tmp_path / "app_turn.json"
    calls = [
        {"tool": "get_customer", "args": {"customer_id": "test-7"}},
        {"tool": "update_customer_loyalty_points", "args": {"points_to_add": 50}},
    ]
    turn.write_text(json.dumps({"session": "app-turn", "calls": calls}), encoding="utf-8")
    with (
        serving(str(app), str(turn), "--agent", "Loyalty Desk", "--fakes") as server,
        browsing(server) as page,
    ):
        assert "app: Customer Service · agent: Loyalty Desk · fakes on" in page.text_content("#app-info")
        assert page.locator("#groups ul[data-kind='tool'] button").all_text_contents() == [
            "get_customer",
            "get_last_user_utterance",
            "summarize_cart",
            "update_customer_loyalty_points",
        ]
        callbacks = page.text_content("#groups ul[data-kind='callbacks']")
        assert "Loyalty Desk: before_tool" in callbacks and "guardrail Card Number Guard" in callbacks
        assert page.text_content("#groups ul[data-kind='fakes']") == "fake of get_customer"

        # A tool run: the session starts from the declared defaults; the agent's callbacks run.
        page.click("#groups button:text-is('update_customer_loyalty_points')")
        page.wait_for_selector("#form [name='points_to_add']")
        page.fill("#form [name='points_to_add']", "50")
        page.click("#run")
        page.wait_for_selector("#result-status.ok")
        changed = page.locator("#diff tbody tr.changed td").all_text_contents()
        assert changed[0] == "customer_profile" and '"loyalty_points":100' in changed[1]
        assert '"loyalty_points":150' in changed[2]
        assert page.locator("#diff tbody tr.same td").first.text_content() == "customers"
        assert '"[email]"' in page.text_content("#output"), "the after_tool callback redacted the e-mail"
        assert "output from after_tool_callback" in page.text_content("#duration")
        page.fill("#form [name='points_to_add']", "900")
        page.click("#run")
        page.wait_for_function("document.querySelector('#output').textContent.includes('between 1 and 500')")
        guard = (
            app
            / "agents"
            / "Loyalty_Desk"
            / "before_tool_callbacks"
            / "before_tool_callbacks_01"
            / "python_code.py"
        )
        guard.write_text(guard.read_text(encoding="utf-8").replace("MAX_POINTS = 500", "MAX_POINTS = 5000"))
        page.click("#run")
        page.wait_for_function("document.querySelector('#output').textContent.includes('1050')")

        # A turn against the app: its fake answers get_customer; state from the declared defaults.
        page.click("#groups button:text-is('app_turn.json')")
        page.click("#run-turn")
        page.wait_for_selector("#turn-status.ok")
        faked = [step for step in page.locator("#steps > li").all_text_contents() if "faked" in step]
        assert faked and "Test Customer" in faked[0]  # after the model callbacks' own steps
        changed = page.locator("#turn-diff tbody tr.changed td").all_text_contents()
        assert changed[0] == "customer_profile" and '"loyalty_points":150' in changed[2]
        assert "customers" in page.locator("#turn-diff tbody tr.same").first.text_content()

        # Saving writes the app's own file.
        code = app / "tools" / "get_last_user_utterance" / "python_function" / "python_code.py"
        page.click("#groups button:text-is('get_last_user_utterance')")
        page.wait_for_function(
            "document.querySelector('#source').value.includes('def get_last_user_utterance')"
        )
        page.fill("#source", page.input_value("#source") + "\n# edited in the page\n")
        page.click("#save")
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('saved')")
        assert code.read_text(encoding="utf-8").endswith("# edited in the page\n")


def test_an_app_given_as_a_zip_is_read_only(tmp_path: Path, tool_file: Path) -> None:
    store = f"sqlite:///{tmp_path / 'web.db'}"  # shared with a page on loose files: sessions apart
    with serving(str(tool_file), store=store) as plain:
        ran = requests.post(
            plain.base + "/api/run",
            json={"source": TOOL, "args": {"customer": "c-1"}},
            headers={"X-Toolpen-Token": plain.token},
            timeout=60,
        ).json()
        assert ran["success"] and ran["session"] == "web"
    folder = SAMPLES / "apps" / "Customer_Service"
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                zipped.write(file, f"Customer_Service/{file.relative_to(folder).as_posix()}")
    with serving(str(archive), store=store) as server:
        token = {"X-Toolpen-Token": server.token}
        described = get(server, "/api/tools", **token).json()
        assert described["app"]["name"] == "Customer Service"
        tool = next(file for file in described["tools"] if file["label"] == "get_customer")
        assert tool["editable"] is False and "def get_customer" in tool["source"]
        saved = requests.post(
            server.base + "/api/save",
            json={"path": tool["path"], "source": "x = 1\n"},
            headers=token,
            timeout=30,
        )
        assert saved.status_code == 422 and "toolpen app unpack" in saved.json()["error"]["message"]
        run = requests.post(
            server.base + "/api/run",
            json={"source": tool["source"], "args": {"customer_id": "123"}},
            headers=token,
            timeout=60,
        ).json()
        assert run["success"] and run["state_before"]["greeted"] == "false", "declared defaults"
        assert run["session"] == "web-Customer_Service" == described["session"]
        script = (SAMPLES / "turns" / "customer_service_turn.json").read_text(encoding="utf-8")
        turn = requests.post(
            server.base + "/api/turn", json={"script": script}, headers=token, timeout=60
        ).json()
        assert [step["name"] for step in turn["steps"]] == ["before_agent_callback"], "the root agent greets"
        assert turn["state"]["greeted"] == "true" and turn["state_before"]["greeted"] == "false"
        assert "the agent did not run, so the script's 3 call(s) were not made" in turn["notes"][0]


def test_an_unusable_app_is_one_line_and_exit_2(tmp_path: Path) -> None:
    app = tmp_path / "Broken"
    app.mkdir()
    (app / "app.json").write_text('{"displayName": "Broken", "pinned": "sometimes"}', encoding="utf-8")
    process = start(str(app))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert err.startswith("error: app.json: ") and "pinned: Input should be" in err and "Traceback" not in err
