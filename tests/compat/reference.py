"""The compatibility corpus and plain CPython's answer for each of its tools.

Each ``corpus/<tool>.py`` is an ordinary tool whose entry function is named like the file; its
first comment lines may give ``# args: {...}``, ``# context: {...}`` and ``# tools: {...}`` (JSON;
``tools`` maps each other tool the tool calls to ``{"takes": [parameter names], "answers": result}``). ``run_in_cpython`` runs it
the way a developer would before pasting it into an agent: ``exec`` in a fresh module, ``context``
a plain stand-in with a real dict as ``state``, ``tools`` a stand-in answering the fixed results,
``print`` to a captured stdout. A tool that raises is expected to fail as toolpen reports it: a
``tool_error`` naming the exception, CPython's message and the tool's own line, its state unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox.process.worker import bind_arguments, jsonable

HERE = Path(__file__).resolve().parent
CORPORA = (HERE / "corpus", HERE / "corpus2")
"""The first corpus, then a second one written by an outside review in styles the first lacked."""
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
    tools: dict[str, Any]

    @classmethod
    def load(cls, path: Path) -> CorpusTool:
        source = path.read_text(encoding="utf-8")
        header: dict[str, Any] = {"args": {}, "context": {}, "tools": {}}
        for line in source.splitlines():
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(":")
            if key in header:
                header[key] = json.loads(value)
        return cls(path.stem, source, header["args"], header["context"], header["tools"])

    def fake_tools(self) -> dict[str, str]:
        """The source of each other tool it calls, answering its fixed result whatever it is given."""
        return {
            name: f"def {name}({', '.join(f'{p}=None' for p in fake['takes'])}):\n    return {fake['answers']!r}\n"
            for name, fake in self.tools.items()
        }

    @property
    def runtime_context(self) -> dict[str, Any]:
        """What ``Runtime.call`` is given: the context with fixed ids, so both runs see the same."""
        return {"invocation_id": INVOCATION_ID, **self.context}


def corpus() -> list[CorpusTool]:
    return [CorpusTool.load(path) for folder in CORPORA for path in sorted(folder.glob("*.py"))]


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

    def get_variable(self, key: str, default: Any = None) -> Any:
        return self.state.get(key, default)

    def set_variable(self, key: str, value: Any) -> None:
        self.state[key] = value


class FakeResponse:
    """What a developer's stand-in for ``tools.<name>(...)`` answers: the result, with ``.json()``."""

    status_code = 200
    ok = True

    def json(self) -> Any:
        return json.loads(json.dumps(self))

    def raise_for_status(self) -> None:
        """Nothing: the stand-in never fails."""


class FakeDict(FakeResponse, dict):  # type: ignore[type-arg]
    """A dict result."""


class FakeList(FakeResponse, list):  # type: ignore[type-arg]
    """A list result."""


class FakeTools:
    """``tools`` as a developer fakes it: each named tool answers its fixed result."""

    def __init__(self, fakes: dict[str, Any]) -> None:
        self._fakes = fakes

    def __getattr__(self, name: str) -> Any:
        result = json.loads(json.dumps(self._fakes[name]["answers"]))
        response = FakeList if isinstance(result, list) else FakeDict
        return lambda arguments=None, /, **keywords: response(result)


@dataclass(frozen=True)
class Observed:
    """What a run shows: the JSON output (or an error kind), the state after it, what it printed."""

    output: Any
    state: dict[str, Any]
    logs: str
    error: dict[str, Any] | None = None


def run_in_cpython(tool: CorpusTool) -> Observed:
    """Run ``tool`` in plain CPython, outside any sandbox."""
    module = types.ModuleType(f"compat_{tool.name}")
    context = PlainContext(tool.context)
    vars(module).update(
        context=context,
        tools=FakeTools(tool.tools),
        get_variable=context.get_variable,
        set_variable=context.set_variable,
    )
    printed = io.StringIO()
    filename = f"{tool.name}.py"
    sys.modules[module.__name__] = module  # as an imported module is (dataclasses and pydantic look it up)
    try:
        with contextlib.redirect_stdout(printed):
            code = compile(tool.source, filename, "exec", dont_inherit=True)  # without our __future__
            exec(code, vars(module))
            function = vars(module)[tool.name]
            positional, keywords = bind_arguments(function, tool.args)
            result = function(*positional, **keywords)
            if asyncio.iscoroutine(result):
                result = asyncio.run(result)
    except Exception as exc:  # a failed call leaves the state it was given
        error = tool_error(exc, filename)
        return Observed(None, PlainContext(tool.context).state, printed.getvalue(), error)
    finally:
        del sys.modules[module.__name__]
    output = json.loads(json.dumps(result, default=jsonable, allow_nan=False, ensure_ascii=False))
    return Observed(output, json.loads(json.dumps(context.state)), printed.getvalue())


def tool_error(exc: BaseException, filename: str) -> dict[str, Any]:
    """CPython's failure as toolpen reports a tool's: ``tool_error``, the message, the tool's last line."""
    lines = [
        line for frame, line in traceback.walk_tb(exc.__traceback__) if frame.f_code.co_filename == filename
    ]
    line = lines[-1] if lines else None
    where = f" (line {line})" if line is not None else ""
    return {"kind": "tool_error", "message": f"{type(exc).__name__}: {exc}{where}", "line": line}
