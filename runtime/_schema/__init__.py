"""From tool source text to what a model is told, in one pipeline.

``reader`` parses the source (never runs it) into a ``ToolSpec`` with the help of ``typehints``
(annotations to JSON Schema, over the module ``scope``), ``classes`` (Enum, BaseModel,
TypedDict and dataclass definitions), ``fields`` (defaults and constraints) and ``docstrings``;
``formats`` lowers a ``ToolSpec`` to each wire format; ``arguments`` validates a call's
arguments against it. Nothing here knows about sandboxes or sessions.

The reader's names load lazily, so that a module that needs only ``formats`` (the CLI, for its
``--format`` option) does not pay for the reader and its docstring parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runtime._schema.reader import ToolSpec, derive_spec, parse_tool_source, spec_from_module

__all__ = ["ToolSpec", "derive_spec", "parse_tool_source", "spec_from_module"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'runtime._schema' has no attribute {name!r}")
    from runtime._schema import reader

    return getattr(reader, name)
