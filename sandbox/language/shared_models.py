"""Host pydantic classes tool code shares with the rest of its worker: MCP's content classes and
CES's ``Part``, ``Content``, ``LlmResponse``, ...: what would change such a class, or open a file
by name, is closed.

A host class is the host's: its config and field dicts, ``model_rebuild`` and its deprecated
spelling ``update_forward_refs`` (pydantic v1's name, which calls ``model_rebuild(force=True)``)
change it for every later use in the worker (the worker builds and serializes CES objects with
these classes), and the deprecated ``parse_file`` opens a file by name with the real ``open``.
Instances are the tool's own, read and written as pydantic has them; the tool's own model
classes keep all of it (``__try_update_forward_refs__`` and the other special names are refused
everywhere, as every special attribute is).
"""

from __future__ import annotations

from typing import Any

from sandbox.language.library_rules import LibraryRule
from sandbox.language.rules import refuse

_SHARED = (
    "it is the class's own state, shared with later calls; use model_json_schema() or the instance's fields"
)
CLOSED = {
    **dict.fromkeys(
        ("model_config", "model_fields", "model_computed_fields", "model_rebuild", "update_forward_refs"),
        _SHARED,
    ),
    "parse_file": "it opens a file by name; use model_validate_json on the text",
}
"""What tool code may not read of a host's pydantic class (or its instances), and why."""


def closed_model_rule(library: str) -> LibraryRule:
    """The rule of ``library``'s pydantic classes: every public name but ``CLOSED``."""

    def attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
        if name in CLOSED:
            refuse(f"{library}: {name!r} is not available in toolpen: {CLOSED[name]}")
        return getattr(obj, name, *default)

    return LibraryRule(attribute)
