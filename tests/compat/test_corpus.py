"""Ordinary tools run under toolpen with plain CPython's output, state and prints.

Every tool of ``corpus/`` and ``corpus2/`` runs through ``Runtime.call`` (a real worker, behind both walls and
behind the process wall alone) and through plain CPython (``reference.run_in_cpython``); the two must agree exactly. A tool the
sandbox has to refuse for security does not belong here but in ``tests/attacks`` with its reason.
A tool that raises in CPython must fail with toolpen's ``tool_error``: CPython's exception name and
message, and the line of the tool's own code that raised.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import Runtime
from tests.compat.reference import CALL_ID, CORPORA, CorpusTool, Observed, corpus, run_in_cpython

TOOLS = corpus()


@pytest.fixture(scope="module", params=["all", "process"])
def compat_runtime(request: pytest.FixtureRequest) -> Iterator[Runtime]:
    """A runtime behind both walls, then one with the process wall alone (plain CPython in the worker)."""
    with Runtime(store="memory://", pool_size=2, walls=request.param) as runtime:
        yield runtime


def test_each_corpus_has_at_least_a_hundred_tools() -> None:
    for folder in CORPORA:
        assert len(list(folder.glob("*.py"))) >= 100, folder


@pytest.mark.parametrize("tool", TOOLS, ids=[tool.name for tool in TOOLS])
def test_tool_runs_as_in_cpython(compat_runtime: Runtime, tool: CorpusTool) -> None:
    expected = run_in_cpython(tool)
    for name, source in tool.fake_tools().items():
        compat_runtime.add_tool(source, name, replace=True)
    compat_runtime.add_tool(tool.source, tool.name, replace=True)
    result = compat_runtime.call(tool.name, tool.args, context=tool.runtime_context, call_id=CALL_ID)
    error = result.error.to_dict() if result.error else None
    assert Observed(result.output, result.state, result.logs, error) == expected
