"""`toolpen app test`, run as a user runs it: the sample app with callback tests written the way
cxas-scrapi's users write them (``test.py`` beside the callback's ``python_code.py``, the classes
from ``cxas_scrapi.utils.callback_libs``), its golden replayed, one summary."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

SAMPLE = ROOT / "samples" / "apps" / "Customer_Service"
CALLBACK = "agents/Front_Desk/before_model_callbacks/before_model_callbacks_01"

pytestmark = pytest.mark.slow

SCRAPI_STYLE_TEST = '''
"""before_model_callback (Front Desk): loyalty questions go to the Loyalty Desk."""

from unittest.mock import MagicMock

import pytest

import python_code
from python_code import before_model_callback
from cxas_scrapi.utils.callback_libs import CallbackContext, Content, LlmRequest, Part


def _request(text, role="user"):
    return LlmRequest(contents=[Content(role=role, parts=[Part(text=text)])])


class TestRouting:
    def test_points_question_transfers_to_loyalty_desk(self):
        result = before_model_callback(CallbackContext(state={}), _request("How many points do I have?"))
        call = result.content.parts[0].function_call
        assert call.name == "transfer_to_agent"
        assert call.args == {"agent_name": "Loyalty Desk"}

    def test_other_questions_go_to_the_model(self):
        assert before_model_callback(CallbackContext(state={}), _request("Where is my order?")) is None

    def test_a_model_turn_is_left_alone(self):
        assert before_model_callback(CallbackContext(state={}), _request("points", role="model")) is None

    def test_an_empty_request_is_left_alone(self):
        request = MagicMock()
        request.contents = []
        assert before_model_callback(CallbackContext(state={}), request) is None

    def test_written_to_fail(self):
        assert before_model_callback(CallbackContext(state={}), _request("Where is my order?")) is not None

    @pytest.mark.skip(reason="voice channel only")
    def test_barge_in(self):
        pass


def test_the_tools_global_runs_the_apps_tool():
    answer = python_code.tools.update_customer_loyalty_points({"points_to_add": 50})
    assert answer["loyalty_points"] == 150


def test_the_fixture_runs_the_apps_tool(ces_app):
    result = ces_app.call(
        "get_last_user_utterance", context={"user_content": {"role": "user", "parts": [{"text": "hi"}]}}
    )
    assert result.success, result.error
'''


def toolpen(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from runtime._cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()
    }


@pytest.fixture(scope="module")
def tested(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], Path, dict[str, bytes]]:
    app = tmp_path_factory.mktemp("app") / "Customer_Service"
    shutil.copytree(SAMPLE, app)
    (app / CALLBACK / "test.py").write_text(SCRAPI_STYLE_TEST)
    before = snapshot(app)
    return toolpen("app", "test", str(app), "--agent", "Loyalty Desk", "--json"), app, before


def by_path(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["path"]: item for item in summary["tests"]}


def test_shipped_scrapi_style_callback_tests_run_against_toolpens_classes(tested: Any) -> None:
    done, _, _ = tested
    assert done.returncode == 1, done.stderr  # test_written_to_fail
    summary = json.loads(done.stdout)
    callback_tests = by_path(summary)[f"{CALLBACK}/test.py"]
    statuses = {test["name"]: test["status"] for test in callback_tests["tests"]}
    assert statuses == {
        "TestRouting.test_points_question_transfers_to_loyalty_desk": "passed",
        "TestRouting.test_other_questions_go_to_the_model": "passed",
        "TestRouting.test_a_model_turn_is_left_alone": "passed",
        "TestRouting.test_an_empty_request_is_left_alone": "passed",
        "TestRouting.test_written_to_fail": "failed",
        "TestRouting.test_barge_in": "skipped",
        "test_the_tools_global_runs_the_apps_tool": "passed",
        "test_the_fixture_runs_the_apps_tool": "passed",
    }
    assert (callback_tests["passed"], callback_tests["failed"], callback_tests["skipped"]) == (6, 1, 1)


def test_goldens_and_tests_make_one_summary_and_nothing_is_written_into_the_app(tested: Any) -> None:
    done, app, before = tested
    summary = json.loads(done.stdout)
    [golden] = summary["goldens"]
    assert golden["name"] == "add_points_golden" and golden["failed"] == 0 and golden["passed"] == 3
    assert summary["totals"] == {
        "passed": golden["passed"] + 6,
        "failed": 1,
        "skipped": golden["skipped"] + 1,
    }
    assert summary["success"] is False and summary["unsandboxed"] is True
    assert "outside the sandbox" in done.stderr
    assert snapshot(app) == before  # no .pytest_cache, no __pycache__: pack sees the export as it was


def test_the_text_summary_names_each_golden_and_file_and_what_failed(tested: Any) -> None:
    _, app, _ = tested
    done = toolpen("app", "test", str(app / ".." / "missing"))
    assert done.returncode == 2
    (app / CALLBACK / "test.py").unlink()
    text = toolpen("app", "test", str(app), "--agent", "Loyalty Desk")
    assert text.returncode == 0, text.stdout + text.stderr
    assert "  add_points_golden: 3 passed, 0 failed, 2 skipped" in text.stdout
    assert "shipped tests: none" in text.stdout and "outside the sandbox" not in text.stderr
