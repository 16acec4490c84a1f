"""The pytest plugin, run as a user runs it: pytest in a subprocess over a test file of theirs."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

SAMPLE = ROOT / "samples" / "apps" / "Customer_Service"

pytestmark = pytest.mark.slow


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # -p no:toolpen, then the module: the same plugin whether or not this tree's entry point is installed
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-v",
        "-p",
        "no:toolpen",
        "-p",
        "runtime.testing.plugin",
        *args,
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def test_the_package_declares_the_plugin_as_a_pytest11_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"toolpen": "runtime.testing.plugin"}


def test_fixtures_call_an_exports_tools_and_callbacks_in_workers(tmp_path: Path) -> None:
    (tmp_path / "test_app.py").write_text(
        """
from runtime.testing.ces import Content, Part

def test_tool(ces_app):
    result = ces_app.call("get_customer", {"customer_id": "123"})
    assert result.success, result.error

def test_policy_of_the_walls(ces_app):
    assert ces_app.runtime().walls == "all"

def test_callbacks(ces_app):
    result = ces_app.callbacks(
        "before_agent", context={"user_content": Content(role="user", parts=[Part(text="hi")])}
    )
    assert result.success, result.error
"""
    )
    done = run_pytest(tmp_path, "--ces-app", str(SAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout


def test_the_fixture_without_an_app_fails_saying_how_to_give_one(tmp_path: Path) -> None:
    (tmp_path / "test_app.py").write_text("def test_tool(ces_app):\n    pass\n")
    env_app = os.environ.pop("TOOLPEN_CES_APP", None)
    try:
        done = run_pytest(tmp_path)
    finally:
        if env_app is not None:
            os.environ["TOOLPEN_CES_APP"] = env_app
    assert done.returncode == 1 and "pass --ces-app PATH" in done.stdout


SCRAPI_STYLE_TEST = """
from unittest.mock import MagicMock

from cxas_scrapi.utils.callback_libs import CallbackContext, Content, LlmResponse, Part


def before_model_callback(callback_context, llm_request):
    if callback_context.user_content.parts[0].text == "<event>session start</event>":
        callback_context.state["greeted"] = "true"
        return LlmResponse.from_parts([Part.from_text("Hello, I am your virtual assistant")])
    return None


def test_session_start_returns_greeting():
    ctx = CallbackContext(state={})
    ctx.user_content = Content(role="user", parts=[Part(text="<event>session start</event>")])
    result = before_model_callback(ctx, llm_request=MagicMock())
    assert "virtual assistant" in result.content.parts[0].text_or_transcript().lower()
    assert ctx.state["greeted"] == "true"


def test_missing_key_raises():
    ctx = CallbackContext(state={})
    try:
        ctx.remove_variable("nope")
    except KeyError:
        return
    raise AssertionError("KeyError expected")
"""


def test_scrapi_style_callback_tests_run_unchanged_against_toolpens_classes(tmp_path: Path) -> None:
    (tmp_path / "test_callback.py").write_text(SCRAPI_STYLE_TEST)
    done = run_pytest(tmp_path, "--ces-scrapi-classes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    without = run_pytest(tmp_path)
    assert without.returncode != 0 and "cxas_scrapi" in without.stdout
