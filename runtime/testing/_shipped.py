"""The tests an export ships beside its code, found and run with pytest and toolpen's plugin.

cxas-scrapi keeps a callback's tests in its folder (``agents/<A>/<kind>_callbacks/<name>/test.py``
or ``test_<name>.py`` beside ``python_code.py``) and runs each file on its own (``CallbackEvals``:
one pytest run per file, since each imports its own ``python_code``). So does ``run_test_file``:
one pytest process per file, its folder the rootdir, with the plugin given the app (``ces_app``
fixture, the app's code imported with the CES globals and ``tools`` calling the sandbox) and
``--ces-scrapi-classes`` unless cxas-scrapi is installed. The file's outcomes are read from
pytest's own JUnit XML report. Nothing is written into the export (no cache, no bytecode), so
``pack`` sees the folder as it was. The test code runs in that process, outside the sandbox.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

Outcome = Literal["passed", "failed", "skipped"]

TEST_FILE_PATTERNS = ("test.py", "test_*.py", "*_test.py")
TIMEOUT_SECONDS = 600


@dataclass(frozen=True)
class TestCase:
    """One test of a shipped file and what pytest made of it."""

    name: str
    status: Outcome
    detail: str = ""


@dataclass(frozen=True)
class FileReport:
    """The tests of one shipped file; ``problem`` when pytest could not run them at all."""

    path: str
    tests: list[TestCase] = field(default_factory=list)
    problem: str = ""

    def counts(self) -> dict[str, int]:
        counted = {"passed": 0, "failed": 0, "skipped": 0}
        for test in self.tests:
            counted[test.status] += 1
        if self.problem:
            counted["failed"] += 1
        return counted

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            **self.counts(),
            "problem": self.problem,
            "tests": [{"name": t.name, "status": t.status, "detail": t.detail} for t in self.tests],
        }


def shipped_test_files(folder: Path, code_paths: set[str]) -> list[Path]:
    """The pytest files in the app's folder (not the app's own code, not ``.toolpen/``), sorted."""
    found = {path for pattern in TEST_FILE_PATTERNS for path in folder.rglob(pattern) if path.is_file()}
    return sorted(
        path
        for path in found
        if ".toolpen" not in path.relative_to(folder).parts
        and path.relative_to(folder).as_posix() not in code_paths
    )


def run_test_file(app_folder: Path, test_file: Path) -> FileReport:
    """Run one shipped file with pytest in a process of its own; its tests' outcomes."""
    relative = test_file.relative_to(app_folder).as_posix()
    with tempfile.TemporaryDirectory(prefix="toolpen-app-test-") as scratch:
        report, ini = Path(scratch) / "junit.xml", Path(scratch) / "pytest.ini"
        ini.write_text("[pytest]\n")  # the settings of a repository around the export stay out
        command = [sys.executable, "-m", "pytest", *_plugin_arguments(app_folder), f"--junitxml={report}"]
        command += ["-q", "-p", "no:cacheprovider", "-c", str(ini), "--rootdir", str(test_file.parent)]
        command.append(str(test_file))
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            done = subprocess.run(
                command,
                cwd=test_file.parent,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            return FileReport(relative, problem=f"pytest ran past {TIMEOUT_SECONDS} s")
        if not report.is_file():
            return FileReport(relative, problem=_last_lines(done.stderr or done.stdout))
        tests = _read_junit(report, test_file.stem)
    if not tests and done.returncode not in (0, 5):  # 5: no tests collected
        return FileReport(relative, problem=_last_lines(done.stdout + done.stderr))
    return FileReport(relative, tests)


def _plugin_arguments(app_folder: Path) -> list[str]:
    # -p no:toolpen, then the module: the same plugin whether or not the entry point is installed
    arguments = ["-p", "no:toolpen", "-p", "runtime.testing.plugin", "--ces-app", str(app_folder)]
    if importlib.util.find_spec("cxas_scrapi") is None:
        arguments.append("--ces-scrapi-classes")
    return arguments


def _read_junit(report: Path, module: str) -> list[TestCase]:
    """Each test case, named as in the file (``TestClass.test_x``, ``test_y``)."""
    tests = []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        classname = case.get("classname", "")
        within = "" if classname == module else classname.removeprefix(f"{module}.")
        tests.append(_outcome(".".join(part for part in (within, case.get("name", "")) if part), case))
    return tests


_JUNIT_OUTCOMES: tuple[tuple[str, Outcome], ...] = (
    ("failure", "failed"),
    ("error", "failed"),
    ("skipped", "skipped"),
)
"""A JUnit test case's child element, and the outcome it means (none of them: passed)."""


def _outcome(name: str, case: ElementTree.Element) -> TestCase:
    for tag, status in _JUNIT_OUTCOMES:
        element = case.find(tag)
        if element is not None:
            return TestCase(name, status, element.get("message") or "")
    return TestCase(name, "passed")


def _last_lines(text: str, count: int = 5) -> str:
    return " | ".join(line for line in text.strip().splitlines()[-count:]) or "pytest failed"
