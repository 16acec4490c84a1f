"""The wild corpus (tests/compat/wild/SOURCES.md) and plain CPython's answer for each tool, with
what the framework it was written for does around the call.

The tool files are third-party code and never committed: they are read from
``$TOOLPEN_WILD_CORPUS`` (default ``/work/corpora/wild``), or from ``tests/compat/wild/*.py`` when
laid out there, and checked against ``tests/compat/wild/MANIFEST.sha256``.

The reference is ``reference.run_in_cpython``'s plain run plus each framework's call convention:

- an injected parameter gets what the framework gives it: ADK's ``ToolContext`` (a
  ``google.adk`` annotation, or a ``tool_context`` parameter) the same ``PlainContext`` as the
  ``context`` global; the Agents SDK's ``RunContextWrapper[T]`` a wrapper whose ``context`` is
  ``T`` validated from the run context; MCP's ``Context`` one whose logging and progress calls go
  nowhere; LangChain's ``RunnableConfig`` ``{"configurable": run_context}``;
- a parameter annotated with a model, dataclass or TypedDict receives ``pydantic.TypeAdapter``'s
  instance (ADK's ``FunctionTool``, the Agents SDK and MCP validate through pydantic); an omitted
  parameter whose default is ``Field(...)`` gets the field's default;
- the return value is serialized by ``pydantic_core.to_jsonable_python`` (aliases, dataclasses,
  enums, datetimes), an ordinary class with annotations as its annotated attributes (MCP's
  structured output).

The run context (``# run_context:``) is, for toolpen, the session state: both runs start from it.
What the tool writes to ``sys.stdout`` and ``sys.stderr`` is its log, as toolpen's call log holds both.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import inspect
import io
import json
import os
import sys
import tempfile
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.compat.reference import CALL_ID, INVOCATION_ID, Observed, PlainContext, tool_error

HERE = Path(__file__).resolve().parent / "wild"
MANIFEST = HERE / "MANIFEST.sha256"
DEFAULT_CORPUS = Path("/work/corpora/wild")


@dataclasses.dataclass(frozen=True)
class WildTool:
    """One tool file: its source, entry, arguments, CES context and framework run context."""

    file: str
    source: str
    entry: str
    framework: str
    args: dict[str, Any]
    context: dict[str, Any]
    run_context: dict[str, Any] | None

    @classmethod
    def load(cls, path: Path) -> WildTool:
        source = path.read_text(encoding="utf-8")
        header: dict[str, Any] = {"args": {}, "context": {}, "run_context": None}
        for line in source.splitlines():
            if not line.startswith("# "):
                break
            key, _, value = line[2:].partition(":")
            header[key] = json.loads(value) if key in ("args", "context", "run_context") else value.strip()
        return cls(
            path.name,
            source,
            header["entry"],
            header.get("framework", ""),
            header["args"],
            header["context"],
            header["run_context"],
        )

    @property
    def snapshot(self) -> dict[str, Any]:
        """The CES context both runs start from; a run context is the session state."""
        if self.run_context is None:
            return self.context
        return {**self.context, "state": {**(self.context.get("state") or {}), **self.run_context}}


def corpus_folder() -> Path | None:
    """Where the tool files are laid out, or None (the test skips)."""
    configured = os.environ.get("TOOLPEN_WILD_CORPUS")
    for folder in ([Path(configured)] if configured else []) + [HERE, DEFAULT_CORPUS]:
        if any(folder.glob("*.py")):
            return folder
    return None


def manifest() -> dict[str, str]:
    """File name -> sha256, as committed."""
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    return {name: digest for digest, name in (line.split(maxsplit=1) for line in lines if line.strip())}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class McpContextStandIn:
    """MCP's Context outside a server: log and progress calls go nowhere, no request."""

    request_context = None

    async def log(self, level: str, message: str, **extra: Any) -> None: ...
    async def debug(self, message: str, **extra: Any) -> None: ...
    async def info(self, message: str, **extra: Any) -> None: ...
    async def warning(self, message: str, **extra: Any) -> None: ...
    async def error(self, message: str, **extra: Any) -> None: ...
    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None: ...


def _annotated_fallback(value: Any) -> Any:
    """MCP's structured output of an ordinary class with annotations: its annotated attributes."""
    hints = getattr(type(value), "__annotations__", None)
    if not hints:
        raise TypeError(f"Unable to serialize unknown type: {type(value).__name__}")
    return {key: getattr(value, key) for key in hints}


def _validated(annotation: Any) -> bool:
    import pydantic

    if typing.get_origin(annotation) is not None:
        return any(_validated(argument) for argument in typing.get_args(annotation))
    return isinstance(annotation, type) and (
        issubclass(annotation, pydantic.BaseModel)
        or dataclasses.is_dataclass(annotation)
        or typing.is_typeddict(annotation)
    )


def _injected(name: str, annotation: Any, tool: WildTool, context: PlainContext) -> tuple[bool, Any]:
    import pydantic
    from mcp.server.mcpserver import Context as McpContext

    base = typing.get_origin(annotation) or annotation
    module = getattr(base, "__module__", "") or ""
    type_name = getattr(base, "__name__", "")
    if module.startswith("google.adk") or (name == "tool_context" and annotation is inspect.Parameter.empty):
        return True, context
    run_context = dict(tool.run_context or {})
    if type_name == "RunContextWrapper":
        from agents import RunContextWrapper

        arguments = typing.get_args(annotation)
        target = arguments[0] if arguments else None
        value = (
            pydantic.TypeAdapter(target).validate_python(run_context) if _validated(target) else run_context
        )
        return True, RunContextWrapper(context=value)
    if type_name == "RunnableConfig":
        return True, {"configurable": run_context}
    if isinstance(base, type) and issubclass(base, McpContext):
        return True, McpContextStandIn()
    return False, None


@contextlib.contextmanager
def _mcp_1x_paths() -> Iterator[None]:
    """The sources import mcp 1.x's ``mcp.server.fastmcp``; the venv's mcp 2.x calls it ``mcpserver``."""
    import mcp.server.mcpserver as server
    import mcp.server.mcpserver.exceptions as exceptions

    added = []
    for name, module in (("mcp.server.fastmcp", server), ("mcp.server.fastmcp.exceptions", exceptions)):
        if name not in sys.modules:
            sys.modules[name] = module
            added.append(name)
    try:
        yield
    finally:
        for name in added:
            del sys.modules[name]


def run_reference(tool: WildTool) -> Observed:
    """Run ``tool`` in plain CPython with its framework's call convention (the module docstring)."""
    import pydantic
    import pydantic_core
    from pydantic.fields import FieldInfo

    module = types.ModuleType(f"wild_{Path(tool.file).stem}")
    context = PlainContext(tool.snapshot)
    context.actions = types.SimpleNamespace(transfer_to_agent=None, escalate=None, skip_summarization=None)  # type: ignore[attr-defined]
    vars(module).update(context=context)
    printed = io.StringIO()
    filename = f"{tool.entry}.py"
    sys.modules[module.__name__] = module
    cwd = os.getcwd()
    try:
        with _mcp_1x_paths(), tempfile.TemporaryDirectory(prefix="wild-ref-") as scratch:
            os.chdir(scratch)
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
                exec(compile(tool.source, filename, "exec", dont_inherit=True), vars(module))
                function = vars(module)[tool.entry]
                hints = typing.get_type_hints(function, include_extras=True)
                keywords: dict[str, Any] = {}
                for parameter in inspect.signature(function).parameters.values():
                    annotation = hints.get(parameter.name, inspect.Parameter.empty)
                    injected, value = _injected(parameter.name, annotation, tool, context)
                    if injected:
                        keywords[parameter.name] = value
                    elif parameter.name in tool.args:
                        value = tool.args[parameter.name]
                        if annotation is not inspect.Parameter.empty and _validated(annotation):
                            value = pydantic.TypeAdapter(annotation).validate_python(value)
                        keywords[parameter.name] = value
                    elif isinstance(parameter.default, FieldInfo):
                        keywords[parameter.name] = parameter.default.get_default(call_default_factory=True)
                result = function(**keywords)
                if asyncio.iscoroutine(result):
                    result = asyncio.run(result)
                jsonable = pydantic_core.to_jsonable_python(result, fallback=_annotated_fallback)
                output = json.loads(json.dumps(jsonable, allow_nan=False, ensure_ascii=False))
    except Exception as exc:  # a failed call leaves the state it was given
        error = tool_error(exc, filename)
        return Observed(None, PlainContext(tool.snapshot).state, printed.getvalue(), error)
    finally:
        os.chdir(cwd)
        sys.modules.pop(module.__name__, None)
    return Observed(output, json.loads(json.dumps(context.state)), printed.getvalue())


__all__ = ["CALL_ID", "INVOCATION_ID", "WildTool", "corpus_folder", "manifest", "run_reference", "sha256"]
