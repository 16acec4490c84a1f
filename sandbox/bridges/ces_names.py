"""The names of the CES classes tool code may use (``Part``, ``LlmRequest``, ...): a leaf both the
classes (``ces_types``, which loads pydantic) and the globals of a call (``ces_context``) read,
and every global name of tool code, which ``toolpen check`` reads without loading pydantic."""

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

CES_GLOBAL_NAMES = frozenset(
    {
        *MODEL_CLASS_NAMES,
        "StatusError",
        "CallbackContext",
        "ToolContext",
        "AsyncTools",
        "context",
        "tools",
        "async_tools",
        "ces_requests",
        "get_variable",
        "set_variable",
        "remove_variable",
    }
)
"""Every name the CES runtime defines in tool and callback code (what ``toolpen check`` accepts):
the classes of ``ces_types.CES_CLASSES`` and the globals ``ces_context`` adds."""

CALL_NAMES = frozenset(
    {"context", "tools", "async_tools", "ces_requests", "get_variable", "set_variable", "remove_variable"}
)
"""The injected names bound to one call (``ces_context.call_globals``); the other injected names,
the classes, hold nothing of a call."""
