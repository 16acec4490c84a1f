"""Take the README's screenshots of `toolpen web samples/` in headless chromium (Playwright, system browser).

    .venv/bin/python scripts/web_screenshot.py [--out docs] [--chromium /usr/bin/chromium]

Writes web.png (a tool run from the generated form: output, logs, state diff, timeline) and
web-turn.png (samples/turns/refund_turn.json run from the page: each step, the callbacks' and
fake's effects, the state before and after). The store is in memory: nothing is left behind.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"]


def start_page() -> tuple[subprocess.Popen[str], str]:
    command = ["web", "samples/", "--no-browser", "--port", "0", "--store", "memory://"]
    process = subprocess.Popen(
        [sys.executable, "-c", "from runtime._cli import main; main()", *command],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    found = re.search(r"http://\S+", line)
    if not found:
        process.kill()
        raise SystemExit(f"toolpen web printed no URL: {line!r}")
    return process, found.group(0)


def open_file(page: Page, label: str) -> None:
    page.click(f"#groups button:text-is('{label}')")
    page.wait_for_function(f"document.querySelector('#current').textContent.includes({label!r})")


def tool_run(page: Page) -> None:
    open_file(page, "update_customer_loyalty_points.py")
    page.wait_for_selector("#form [name='points_to_add']")
    page.fill("#form [name='points_to_add']", "50")
    page.fill("#state-json", '{"customer_profile": {"email": "ana@example.com", "loyalty_points": 100}}')
    page.click("#run")
    page.wait_for_selector("#result-status.ok")
    page.wait_for_selector("#timeline li")


def turn_run(page: Page) -> None:
    open_file(page, "refund_turn.json")
    page.click("#run-turn")
    page.wait_for_selector("#turn-status.ok")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    options = parser.parse_args()
    process, url = start_page()
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=options.chromium, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1440, "height": 1000}, bypass_csp=True).new_page()
            page.set_default_timeout(30_000)
            page.goto(url)
            page.wait_for_selector("#groups button.active")
            tool_run(page)
            page.screenshot(path=str(options.out / "web.png"), full_page=True)
            turn_run(page)
            page.screenshot(path=str(options.out / "web-turn.png"), full_page=True)
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(f"wrote {options.out / 'web.png'} and {options.out / 'web-turn.png'}")


if __name__ == "__main__":
    main()
