"""From tool source text to what a model is told, in one pipeline.

``reader`` parses the source (never runs it) into a ``ToolSpec`` with the help of ``typehints``
(annotations to JSON Schema, over the module ``scope``), ``classes`` (Enum, BaseModel,
TypedDict and dataclass definitions), ``fields`` (defaults and constraints) and ``docstrings``;
``formats`` lowers a ``ToolSpec`` to each wire format; ``arguments`` validates a call's
arguments against it. Nothing here knows about sandboxes or sessions.
"""

from runtime._schema.reader import ToolSpec, derive_spec, parse_tool_source, spec_from_module

__all__ = ["ToolSpec", "derive_spec", "parse_tool_source", "spec_from_module"]
