"""walls="process": tool code as plain CPython in the same workers, with the same proxies."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime import Runtime
from sandbox.common.errors import InvalidArguments, InvalidSource, PolicyViolation
from sandbox.common.limits import Limits
from sandbox.messages import Call
from sandbox.process.pool import WorkerPool

FULL_PYTHON = '''
import os
import sys


def full_python(x: int) -> dict:
    """Uses what the language wall refuses: open, __import__, dunder attributes, globals()."""
    print("running", x, sep="=")
    context.state["seen"] = x
    return {
        "uid": os.getuid(),
        "open": callable(open),
        "module": sys.modules[__name__].__name__,
        "dunder": (1).__class__.__name__,
        "globals": sorted(name for name in ("context", "tools", "ces_requests") if name in globals()),
        "import": __import__("json").dumps([x]),
    }
'''


@pytest.fixture(scope="module")
def plain() -> Iterator[Runtime]:
    with Runtime(store="memory://", walls="process", pool_size=1) as runtime:
        yield runtime


def test_plain_tools_hold_the_real_builtins_and_the_injected_names(plain: Runtime) -> None:
    plain.add_tool(FULL_PYTHON, replace=True)
    result = plain.call("full_python", {"x": 3})
    assert result.success, result.error
    assert result.output == {
        "uid": 65534,
        "open": True,
        "module": "toolpen_plain_tool",
        "dunder": "int",
        "globals": ["ces_requests", "context", "tools"],
        "import": "[3]",
    }
    assert result.logs == "running=3\n" and result.state_delta["set"] == {"seen": 3}


def test_the_same_source_is_refused_under_all_walls() -> None:
    with Runtime(store="memory://", pool_size=1) as runtime, pytest.raises(PolicyViolation):
        runtime.add_tool(FULL_PYTHON)


def test_plain_tools_call_other_tools_and_keep_their_errors(plain: Runtime) -> None:
    plain.add_tool('def inner(n: int) -> int:\n    """Doubles."""\n    return n * 2\n', replace=True)
    plain.add_tool(
        textwrap.dedent('''
            def outer(n: int) -> dict:
                """Calls inner, then fails on purpose."""
                doubled = tools.inner({"n": n})
                if n > 1:
                    raise KeyError("too big")
                return {"doubled": doubled}
        '''),
        replace=True,
    )
    assert plain.call("outer", {"n": 1}).output == {"doubled": 2}
    failed = plain.call("outer", {"n": 2})
    assert failed.error is not None and failed.error.kind == "tool_error"
    assert failed.error.message == "KeyError: 'too big' (line 6)" and failed.error.line == 6


def test_a_syntax_error_is_located_when_the_tool_is_added(plain: Runtime) -> None:
    with pytest.raises(InvalidSource) as caught:
        plain.add_tool('def broken() -> int:\n    """B."""\n    return (\n')
    assert caught.value.line is not None


def test_an_unknown_walls_mode_is_refused() -> None:
    with pytest.raises(InvalidArguments, match="walls is one of all, process"):
        Runtime(walls="none")  # type: ignore[arg-type]


def _job(source: str, walls: str) -> Call:
    return Call(source, "reads", args={}, context={"state": {}}, walls=walls)


def _refuse(target: str, method: str, params: dict[str, Any]) -> Any:
    raise AssertionError("no RPC expected")


def test_the_warm_code_cache_is_keyed_on_the_walls_mode() -> None:
    """A code object compiled for plain CPython is never run under the language wall, nor the reverse."""
    source = 'def reads() -> str:\n    """R."""\n    return str(().__class__.__bases__)\n'
    limits = Limits(wall_time=5.0)
    with WorkerPool(size=1) as pool:
        pool.warm(source, "process")
        assert pool.run(_job(source, "process"), limits, _refuse).output == "(<class 'object'>,)"
        refused = pool.run(_job(source, "all"), limits, _refuse)
        assert refused.error is not None and refused.error.kind == "policy"
        pool.warm(source, "all")
        assert pool.run(_job(source, "process"), limits, _refuse).output == "(<class 'object'>,)"


def test_toolpen_run_walls_process(tmp_path: Path) -> None:
    tool = tmp_path / "full_python.py"
    tool.write_text(FULL_PYTHON)
    store = f"sqlite:///{tmp_path / 's.db'}"
    command = [sys.executable, "-c", "from runtime._cli import main; main()", "run", str(tool)]
    command += ["--args", '{"x": 1}', "--store", store, "--json"]
    plain = subprocess.run([*command, "--walls", "process"], capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["output"]["uid"] == 65534
    walled = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert walled.returncode == 2 and json.loads(walled.stdout)["error"]["kind"] == "policy"


def test_toolpen_check_walls_process(tmp_path: Path) -> None:
    tool = tmp_path / "full_python.py"
    tool.write_text(FULL_PYTHON)
    command = [sys.executable, "-c", "from runtime._cli import main; main()", "check", str(tool)]
    assert subprocess.run(command, capture_output=True, text=True, timeout=120).returncode == 1
    plain = subprocess.run([*command, "--walls", "process"], capture_output=True, text=True, timeout=120)
    assert plain.returncode == 0, plain.stdout


STREAMS = '''
import sys


def streams() -> str:
    """Writes to both streams and prints."""
    print("printed")
    print("to stderr", file=sys.stderr)
    sys.stdout.write("to stdout\\n")
    return "ok"
'''


@pytest.mark.parametrize("walls", ["all", "process"])
def test_sys_stdout_and_stderr_write_to_the_call_log(walls: str) -> None:
    with Runtime(store="memory://", walls=walls, pool_size=1) as runtime:
        runtime.add_tool(STREAMS, replace=True)
        result = runtime.call("streams", {})
    assert result.success, result.error
    assert result.logs == "printed\nto stderr\nto stdout\n"
