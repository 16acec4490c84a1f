"""pydantic reads attributes by name in Rust, outside the guards: hold those names to the attribute rule.

With ``from_attributes`` (``ConfigDict(from_attributes=True)`` or ``model_validate(obj,
from_attributes=True)``), pydantic-core validates a model, dataclass or TypedDict by reading the
input's attributes named by its field names and validation aliases (``Field(validation_alias=...)``,
``AliasPath``, ``AliasChoices``, an alias generator, a mutated ``FieldInfo`` or dataclass
``Field``). Those ``getattr`` calls never meet ``guarded_getattr``, so an alias such as
``AliasPath("request", "__globals__")`` on ``ces_requests`` handed tool code the worker's real
module globals and builtins. The only place every such name is final is the core schema a
validator or serializer is built from: ``install_pydantic_hook`` checks it at every build (in a
worker always, so a deferred build after the tool returned is checked too), copies of built ones
are the objects themselves (a copy would rebuild one from its schema), and ``classes.guarded_type``
keeps the ``SchemaValidator``/``SchemaSerializer`` classes (which take a raw core schema) away from
tool code.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any

import pydantic_core

from sandbox.language.arming import checks_apply
from sandbox.language.classes import GuardedType
from sandbox.language.rules import LIBRARY_CLOSED_NAMES, is_allowed_attribute, refuse

_FIELD_HOLDERS = ("model-fields", "typed-dict")
_CLASS_CHECKS = ("is-instance", "is-subclass")
_SERIALIZER_MODULES = (
    "pydantic.type_adapter",
    "pydantic._internal._model_construction",
    "pydantic._internal._dataclasses",
)


def _check_name(name: object, what: str) -> None:
    if isinstance(name, str) and not is_allowed_attribute(name):
        why = (
            "read from a str it is the real str.format, whose fields walk attributes past the guards"
            if name in ("format", "format_map")
            else "it would read a private attribute"
        )
        refuse(f"pydantic {what} {name!r} is not allowed: {why}")
    if isinstance(name, str) and name in LIBRARY_CLOSED_NAMES:
        refuse(
            f"pydantic {what} {name!r} is not allowed: it would read an attribute closed on numpy or protobuf objects"
        )


def _items(node: Any) -> list[Any]:
    """What pydantic-core reads of a list, tuple or dict (its values): the storage, never an overridden method."""
    kind = type(node)
    if issubclass(kind, dict):
        return list(dict.values(node))
    if issubclass(kind, list):
        return list(list.__iter__(node))
    if issubclass(kind, tuple):
        return list(tuple.__iter__(node))
    return []


def _check_alias(alias: Any) -> None:
    """``str``, a path ``[str | int, ...]`` or choices ``[[str | int, ...], ...]``; strings are attribute names."""
    if issubclass(type(alias), list | tuple):
        for part in _items(alias):
            _check_alias(part)
    else:
        _check_name(alias, "alias")


def _check_field_name(name: object) -> None:
    # ``format`` too: read from a ``str`` subclass it is the real ``str.format``, whose ``{0.__x__}``
    # fields walk attributes unguarded (class bodies may not declare such fields either).
    _check_name(name, "field name")


def check_core_schema(schema: Any) -> None:
    """Refuse a core schema with field names, computed fields, validation aliases, a model's ``post_init`` or a
    tagged union's discriminator that name attributes tool code may not read.

    Tool code reaches raw schemas too (an object in ``Annotated[...]`` metadata answering
    ``__get_pydantic_core_schema__`` through ``__getattr__``), so every place pydantic-core reads an
    attribute by a name the schema gives is checked here, whoever wrote the schema.

    An ``is-instance``/``is-subclass`` check of the real ``type`` is changed to the tool's
    ``type`` (``classes.GuardedType``, which answers ``isinstance`` the same way), so that no schema
    built under the wall hands tool code the class factory.

    The walk reads the schema as pydantic-core does (dict and list storage, ``type`` as an exact
    ``str``), so no method of a tool's subclass runs and what is checked is what is built.
    """
    stack = [schema]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if issubclass(type(node), dict):
            kind = dict.get(node, "type")
            kind = kind if type(kind) is str else None
            fields: Any = dict.get(node, "fields")
            if kind in _FIELD_HOLDERS and issubclass(type(fields), dict):
                for name in list(dict.__iter__(fields)):
                    _check_field_name(name)
            if kind == "dataclass" and issubclass(type(fields), list):  # the serializer reads each by getattr
                for name in list(list.__iter__(fields)):
                    _check_field_name(name)
            if kind == "dataclass-field":
                _check_field_name(dict.get(node, "name"))
            if kind == "computed-field":
                _check_field_name(dict.get(node, "property_name"))
            if kind == "model":  # pydantic-core calls the method this names on each new instance
                _check_name(dict.get(node, "post_init"), "post_init method")
            if kind == "tagged-union" and not callable(dict.get(node, "discriminator")):
                # a key, or with from_attributes an attribute path
                _check_alias(dict.get(node, "discriminator"))
            if dict.__contains__(node, "validation_alias"):
                _check_alias(dict.get(node, "validation_alias"))
            if kind in _CLASS_CHECKS and dict.get(node, "cls") is type:
                # ``typing.Type`` / ``type[Any]``: the schema is public (``TypeAdapter.core_schema``), and
                # the real ``type`` in it would build classes and metaclasses past guarded_type
                dict.__setitem__(node, "cls", GuardedType)
        stack.extend(_items(node))


_hook_installed = False


def install_pydantic_hook() -> None:
    """Check every validator and serializer pydantic builds, and never rebuild one by copying. Idempotent.

    Validators and serializers are checked with ``check_core_schema`` always in a worker (the
    worker may build a deferred one while it serializes a result), elsewhere while tool code is on
    the stack. ``copy``/``deepcopy`` of a pydantic-core ``SchemaValidator``/``SchemaSerializer``
    would rebuild it from its schema (``__reduce__``) past the check: both are immutable, so a copy
    is the object itself.
    """
    global _hook_installed
    if _hook_installed:
        return
    from pydantic.plugin import _schema_validator

    original_validator = _schema_validator.SchemaValidator
    original_serializer = pydantic_core.SchemaSerializer

    def checked_schema_validator(schema: Any, config: Any = None, **kwargs: Any) -> Any:
        if checks_apply():
            check_core_schema(schema)
        return original_validator(schema, config, **kwargs)

    def checked_schema_serializer(schema: Any, config: Any = None, **kwargs: Any) -> Any:
        if checks_apply():
            check_core_schema(schema)
        return original_serializer(schema, config, **kwargs)

    # create_schema_validator and PluggableSchemaValidator look the name up in their module at call time.
    _schema_validator.SchemaValidator = checked_schema_validator  # type: ignore[misc,assignment]
    for name in _SERIALIZER_MODULES:  # likewise where pydantic builds serializers
        importlib.import_module(name).SchemaSerializer = checked_schema_serializer  # type: ignore[attr-defined]
    for kind in (pydantic_core.SchemaValidator, pydantic_core.SchemaSerializer):
        copy._copy_dispatch[kind] = copy._copy_immutable  # type: ignore[attr-defined]
        copy._deepcopy_dispatch[kind] = copy._deepcopy_atomic  # type: ignore[attr-defined]
    _hook_installed = True
