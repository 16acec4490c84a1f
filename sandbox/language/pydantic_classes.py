"""The class-level state of pydantic models tool code did not define: read-only, or out of reach.

``BaseModel`` itself, the CES classes (``Part``, ``Content``, ``LlmResponse``, ...), the framework
views' models and any library's are one object per process, shared by everything the worker does
with them: its own validation and serialization of the call's context, results and callbacks,
and, with ``reuse_workers``, every later call. Through pydantic's attributes a tool could change
them without an attribute write the guards see: ``BaseModel.model_config["extra"] = "allow"`` (the
config every model defined later inherits), ``Part.model_fields["text"].default = ...``,
``Content.model_fields.clear()``, ``Part.model_rebuild(force=True)`` (or its v1 spelling
``update_forward_refs()``). So on such a class and its
instances ``model_config``, ``model_fields`` and ``model_computed_fields`` are read-only copies
(a ``MappingProxyType`` over deep copies of the ``FieldInfo``s: ``model_fields["text"].default`` reads as
pydantic has it, and a write, into its ``metadata`` list too, changes nothing shared) and ``model_rebuild`` / ``update_forward_refs`` are refused. A tool's own
models (``class M(BaseModel)``, a subclass of ``Part`` too) are its own and as pydantic has them.
"""

from __future__ import annotations

import copy
import types
from typing import Any

import pydantic

from sandbox.language.library_rules import LibraryRule, register_library_types
from sandbox.language.rules import PLAIN_MODULE_NAME, TOOL_MODULE_NAME, refuse

READ_ONLY = frozenset({"model_config", "model_fields", "model_computed_fields"})
REFUSED = dict.fromkeys(
    ("model_rebuild", "update_forward_refs"),  # the second is pydantic v1's spelling of the first
    "it rebuilds a class shared with the library and the worker; define a model of your own",
)
_TOOL_MODULES = frozenset({TOOL_MODULE_NAME, PLAIN_MODULE_NAME})


def _attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
    if name in REFUSED:
        refuse(f"pydantic: {name!r} of a library's model is not available in toolpen: {REFUSED[name]}")
    value = getattr(obj, name, *default)
    if name in READ_ONLY and isinstance(value, dict):
        return types.MappingProxyType({key: _detached(item) for key, item in value.items()})
    return value


def _detached(item: Any) -> Any:
    """A copy of a config value or ``FieldInfo`` sharing nothing mutable with it: a shallow one shared
    its ``metadata`` list and ``json_schema_extra`` dict (``model_fields["text"].metadata.append(...)``
    reached every later read, and what a subclass inherits)."""
    try:
        return copy.deepcopy(item)
    except Exception:  # noqa: BLE001 - a default deepcopy cannot copy: the shallow copy, as before
        return copy.copy(item)


_RULE = LibraryRule(_attribute, subclassable=True)


def _library_model_rule(cls: type) -> LibraryRule | None:
    if not issubclass(cls, pydantic.BaseModel):
        return None
    module = vars(cls).get("__module__")
    return None if module in _TOOL_MODULES else _RULE


register_library_types(_library_model_rule, fallback=True)  # a view's own rule first (mcp.types')
