"""The deliberate refusals an outside review ran into: each says why and what to do instead.

Each ``refused/<tool>.py`` is ordinary code that the language wall refuses on purpose (its
first lines give ``# refused: <what the message says>``; docs/security.md lists the reasons).
Behind both walls the call fails with that message, which names ``--walls process`` (or, for the
recursion limit, how to raise it); behind the process wall alone the tool runs as in plain CPython.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime import Runtime
from tests.compat.reference import CALL_ID, CorpusTool, Observed, run_in_cpython

REFUSED = sorted((Path(__file__).resolve().parent / "refused").glob("*.py"))


def expected_message(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# refused: "):
            return line.removeprefix("# refused: ")
    raise AssertionError(f"{path.name} has no '# refused:' line")


@pytest.fixture(scope="module", params=["all", "process"])
def runtime(request: pytest.FixtureRequest) -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=2, walls=request.param) as runtime:
        yield runtime


def call(runtime: Runtime, tool: CorpusTool) -> Observed:
    try:
        runtime.add_tool(tool.source, tool.name, replace=True)
    except Exception as error:  # a compile-time refusal: the same fields as a run-time one
        return Observed(None, {}, "", {"kind": getattr(error, "kind", ""), "message": str(error)})
    result = runtime.call(tool.name, tool.args, context=tool.runtime_context, call_id=CALL_ID)
    return Observed(
        result.output, result.state, result.logs, result.error.to_dict() if result.error else None
    )


@pytest.mark.parametrize("path", REFUSED, ids=[path.stem for path in REFUSED])
def test_a_deliberate_refusal_says_why_and_the_process_wall_runs_it(runtime: Runtime, path: Path) -> None:
    tool = CorpusTool.load(path)
    observed = call(runtime, tool)
    if runtime.walls == "process":
        assert observed == run_in_cpython(tool)
        return
    assert observed.error is not None
    message = observed.error["message"]
    assert expected_message(path) in message
    assert "--walls process" in message or "Limits(recursion=" in message
