"""Tools that use files (open, os, os.path, pathlib, tempfile, os.environ) give CPython's results.

Each ``scratch/<tool>.py`` runs in plain CPython in a fresh directory of its own (its working
directory and ``tempfile.gettempdir()``, an environment without the ``TOOLPEN_COMPAT_`` names), and
under the default walls, where the same calls go to the call's in-memory scratch directory
(``/tmp``). The two must agree, once the CPython directory's path is written as ``/tmp``. Under
``walls="process"`` a tool sees the jail's read-only file system instead (docs/security.md).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime import Runtime
from tests.compat.reference import CALL_ID, CorpusTool, Observed, run_in_cpython

FOLDER = Path(__file__).resolve().parent / "scratch"
TOOLS = [CorpusTool.load(path) for path in sorted(FOLDER.glob("*.py"))]


def in_cpython(tool: CorpusTool) -> Observed:
    """``run_in_cpython`` with a fresh directory as the working directory and the temporary one."""
    before = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        real = os.path.realpath(folder)
        tempfile.tempdir = real
        os.chdir(real)
        try:
            observed = run_in_cpython(tool)
        finally:
            os.chdir(before)
            tempfile.tempdir = None
    return Observed(*(_as_scratch(value, real) for value in vars(observed).values()))


def _as_scratch(value: Any, folder: str) -> Any:
    return json.loads(json.dumps(value).replace(folder, "/tmp"))


@pytest.fixture(scope="module")
def walled() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        yield runtime


def test_the_corpus_uses_every_file_module() -> None:
    sources = "".join(tool.source for tool in TOOLS)
    for name in ("import os", "pathlib", "tempfile", "open(", "os.environ"):
        assert name in sources


@pytest.mark.parametrize("tool", TOOLS, ids=[tool.name for tool in TOOLS])
def test_file_tool_runs_as_in_cpython(walled: Runtime, tool: CorpusTool) -> None:
    walled.add_tool(tool.source, tool.name, replace=True)
    result = walled.call(tool.name, tool.args, context=tool.runtime_context, call_id=CALL_ID)
    error = result.error.to_dict() if result.error else None
    assert Observed(result.output, result.state, result.logs, error) == in_cpython(tool)
