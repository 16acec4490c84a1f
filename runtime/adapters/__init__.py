"""Adapters for agent frameworks: registered tools as the framework's own tools, each call sandboxed.

``openai_agents`` (the ``agents`` extra: OpenAI Agents SDK ``FunctionTool``), ``adk`` (the ``adk``
extra: Google ADK ``BaseTool``), ``langchain`` (the ``langchain`` extra: ``StructuredTool``). What
they share lives here: a tool's definition, one call run off the event loop, its answer as text.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from runtime._schema.formats import FREE_FORM_NOTE, lower
from runtime.protocols import error_text, output_text, run_call
from sandbox.common.errors import InvalidSource

if TYPE_CHECKING:
    from runtime._registry import Tool
    from runtime._results import ToolResult
    from runtime._runtime import Runtime


__all__ = [
    "Definition",
    "answer",
    "call",
    "definition",
]


@dataclass(frozen=True)
class Definition:
    """What a framework needs to show a tool to its model."""

    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool


def definition(tool: Tool, *, strict: bool = True) -> Definition:
    """The tool's name, description and JSON Schema; strict (every property required, closed
    objects) when asked and the schema allows it, else as derived: as the Agents SDK's own
    ``function_tool`` does, a dict's free-form object is sent non-strict, not closed to ``{}``."""
    schema = None
    if strict:
        try:
            lowered = lower(tool.spec, "responses", strict=True)
        except InvalidSource:  # a schema strict mode cannot express: sent as derived
            lowered = None
        if lowered is not None and not any(note.startswith(FREE_FORM_NOTE) for note in lowered.notes):
            schema = lowered.schema
    schema = schema or tool.schema("responses")
    description = schema.get("description") or tool.spec.description or ""
    return Definition(tool.name, description, schema["parameters"], bool(schema.get("strict")))


async def call(
    runtime: Runtime,
    name: str,
    args: dict[str, Any],
    *,
    session_id: str | None,
    call_id: str | None = None,
    context: dict[str, Any] | None = None,
) -> ToolResult:
    """Run one call in a thread (the sandbox call blocks), so the framework's event loop runs on."""
    return await asyncio.to_thread(
        run_call,
        runtime,
        name,
        args,
        define=lambda tool: tool.schema("responses"),
        session_id=session_id,
        call_id=call_id,
        context=context,
    )


def answer(result: ToolResult) -> str:
    """What the model reads back: the output as text, or the error led by its kind."""
    return output_text(result.output) if result.success else error_text(result.error)
