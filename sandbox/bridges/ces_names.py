"""The names of the CES classes tool code may use (``Part``, ``LlmRequest``, ...): a leaf both the
classes (``ces_types``, which loads pydantic) and the globals of a call (``ces_context``) read."""

from __future__ import annotations

MODEL_CLASS_NAMES = (
    "Blob",
    "FunctionCall",
    "FunctionResponse",
    "Part",
    "Content",
    "EventActions",
    "Event",
    "FunctionDeclaration",
    "ToolDeclaration",
    "GenerateContentConfig",
    "LlmRequest",
    "LlmResponse",
    "Tool",
)
