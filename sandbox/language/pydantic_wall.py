"""pydantic reads attributes by name in Rust, outside the guards: hold those names to the attribute rule.

With ``from_attributes`` (``ConfigDict(from_attributes=True)`` or ``model_validate(obj,
from_attributes=True)``), pydantic-core validates a model, dataclass or TypedDict by reading the
input's attributes named by its field names and validation aliases (``Field(validation_alias=...)``,
``AliasPath``, ``AliasChoices``, an alias generator, a mutated ``FieldInfo`` or dataclass
``Field``). Those ``getattr`` calls never meet ``guarded_getattr``, so an alias such as
``AliasPath("request", "__globals__")`` on ``ces_requests`` handed tool code the worker's real
module globals and builtins. The only place every such name is final is the core schema a
validator is built from: ``install_pydantic_hook`` checks it whenever tool code builds a
validator, and ``guards.guarded_type`` keeps the ``SchemaValidator``/``SchemaSerializer`` classes
(which take a raw core schema) away from tool code.
"""

from __future__ import annotations

from typing import Any

from sandbox.language.guards import is_allowed_attribute, refuse, tool_code_on_stack

_FIELD_HOLDERS = ("model-fields", "typed-dict")


def _check_name(name: object, what: str) -> None:
    if isinstance(name, str) and not is_allowed_attribute(name):
        refuse(f"pydantic {what} {name!r} is not allowed: it would read a private attribute")


def _check_alias(alias: Any) -> None:
    """``str``, a path ``[str | int, ...]`` or choices ``[[str | int, ...], ...]``; strings are attribute names."""
    if isinstance(alias, list | tuple):
        for part in alias:
            _check_alias(part)
    else:
        _check_name(alias, "alias")


def _check_field_name(name: object) -> None:
    # ``format`` too: read from a ``str`` subclass it is the real ``str.format``, whose ``{0.__x__}``
    # fields walk attributes unguarded (class bodies may not declare such fields either).
    _check_name(name, "field name")


def check_core_schema(schema: Any) -> None:
    """Refuse a core schema whose field names or validation aliases name attributes tool code may not read."""
    stack = [schema]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            kind = node.get("type")
            if kind in _FIELD_HOLDERS and isinstance(node.get("fields"), dict):
                for name in node["fields"]:
                    _check_field_name(name)
            if kind == "dataclass-field":
                _check_field_name(node.get("name"))
            if "validation_alias" in node:
                _check_alias(node["validation_alias"])
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)


_hook_installed = False


def install_pydantic_hook() -> None:
    """Route every validator pydantic builds through ``check_core_schema`` when tool code builds it. Idempotent."""
    global _hook_installed
    if _hook_installed:
        return
    from pydantic.plugin import _schema_validator

    original = _schema_validator.SchemaValidator

    def checked_schema_validator(schema: Any, config: Any = None, **kwargs: Any) -> Any:
        if tool_code_on_stack():
            check_core_schema(schema)
        return original(schema, config, **kwargs)

    # create_schema_validator and PluggableSchemaValidator look the name up in their module at call time.
    _schema_validator.SchemaValidator = checked_schema_validator  # type: ignore[misc,assignment]
    _hook_installed = True
