"""The compatibility corpus and plain CPython's answer for each of its tools.

Each ``corpus/<tool>.py`` is an ordinary tool whose entry function is named like the file; its
first comment lines may give ``# args: {...}`` and ``# context: {...}`` (JSON). ``run_in_cpython``
runs it the way a developer would before pasting it into an agent: ``exec`` in a fresh module,
``context`` a plain stand-in with a real dict as ``state``, ``print`` to a captured stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.process.worker import bind_arguments, jsonable

CORPUS = Path(__file__).resolve().parent / "corpus"
CALL_ID = "call-compat"
INVOCATION_ID = "inv-compat"
DEFAULT_USER_CONTENT = {"role": "user", "parts": []}


@dataclass(frozen=True)
class CorpusTool:
    """One tool of the corpus: its source, entry function, arguments and context."""

    name: str
    source: str
    args: dict[str, Any]
    context: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> CorpusTool:
        source = path.read_text(encoding="utf-8")
        header: dict[str, Any] = {"args": {}, "context": {}}
        for line in source.splitlines():
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(":")
            if key in header:
                header[key] = json.loads(value)
        return cls(path.stem, source, header["args"], header["context"])

    @property
    def runtime_context(self) -> dict[str, Any]:
        """What ``Runtime.call`` is given: the context with fixed ids, so both runs see the same."""
        return {"invocation_id": INVOCATION_ID, **self.context}


def corpus() -> list[CorpusTool]:
    return [CorpusTool.load(path) for path in sorted(CORPUS.glob("*.py"))]


class PlainContext:
    """``context`` as a developer fakes it to try a tool: plain attributes and a dict ``state``."""

    def __init__(self, snapshot: dict[str, Any]) -> None:
        self.state: dict[str, Any] = json.loads(json.dumps(snapshot.get("state") or {}))
        self.user_content = snapshot.get("user_content") or DEFAULT_USER_CONTENT
        self.events = snapshot.get("events") or []
        self.function_call_id = CALL_ID
        self.session_id = None  # an ephemeral call's id is made up per call: the corpus never shows it
        self.invocation_id = INVOCATION_ID
        self.agent_name = snapshot.get("agent_name") or "agent"


@dataclass(frozen=True)
class Observed:
    """What a run shows: the JSON output (or an error kind), the state after it, what it printed."""

    output: Any
    state: dict[str, Any]
    logs: str


def run_in_cpython(tool: CorpusTool) -> Observed:
    """Run ``tool`` in plain CPython, outside any sandbox."""
    module = types.ModuleType(f"compat_{tool.name}")
    context = PlainContext(tool.context)
    vars(module)["context"] = context
    printed = io.StringIO()
    sys.modules[module.__name__] = module  # as an imported module is (dataclasses and pydantic look it up)
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(tool.source, f"{tool.name}.py", "exec"), vars(module))
            function = vars(module)[tool.name]
            positional, keywords = bind_arguments(function, tool.args)
            result = function(*positional, **keywords)
            if asyncio.iscoroutine(result):
                result = asyncio.run(result)
    finally:
        del sys.modules[module.__name__]
    output = json.loads(json.dumps(result, default=jsonable, allow_nan=False, ensure_ascii=False))
    return Observed(output, json.loads(json.dumps(context.state)), printed.getvalue())
