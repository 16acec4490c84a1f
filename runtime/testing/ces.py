"""The CES runtime's classes, for a test to build a callback's or tool's inputs with.

The same classes tool and callback code sees in the sandbox: ``CallbackContext`` and
``ToolContext`` built from plain values (``CallbackContext(state={...}, user_content=...)``,
cxas-scrapi's fields and methods), ``Content``, ``Part``, ``Event``, ``LlmRequest``,
``LlmResponse``, ... With the plugin's ``--ces-scrapi-classes``, ``cxas_scrapi.utils.callback_libs``
names this module, so scrapi-style callback tests run unchanged.
"""

from sandbox.bridges.ces_context import AsyncTools, CallbackContext, ToolContext
from sandbox.bridges.ces_types import (
    Blob,
    Content,
    Event,
    EventActions,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerateContentConfig,
    LlmRequest,
    LlmResponse,
    Part,
    StatusError,
    Tool,
    ToolDeclaration,
)

__all__ = [
    "AsyncTools",
    "Blob",
    "CallbackContext",
    "Content",
    "Event",
    "EventActions",
    "FunctionCall",
    "FunctionDeclaration",
    "FunctionResponse",
    "GenerateContentConfig",
    "LlmRequest",
    "LlmResponse",
    "Part",
    "StatusError",
    "Tool",
    "ToolContext",
    "ToolDeclaration",
]
