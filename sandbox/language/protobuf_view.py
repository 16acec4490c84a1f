"""The protobuf view: the well-known message types and JSON conversion, without descriptors.

What a CES tool uses protobuf for is ``Struct``/``Value``/``ListValue`` and ``json_format``. The
view offers those, the other well-known types (``Timestamp``, ``Duration``, ``Any``, ``FieldMask``,
``Empty``, the wrappers) and ``message``'s classes, and nothing of ``descriptor_pool``,
``message_factory``, ``symbol_database``, ``reflection``, ``text_format`` or
``google.protobuf.internal``: descriptors lead to the process-wide descriptor pool, where
``AddSerializedFile`` defines new message types for every later call.

Attributes of messages are read through an allowlist per message class (``LibraryRule``):
its fields, its nested types and enum values, the well-known type's helpers, and the message
methods; ``DESCRIPTOR``, ``Extensions``, ``UnknownFields`` and ``RegisterExtension`` are closed,
and a field descriptor (from ``ListFields()``) shows only its name, number and JSON name.
"""

from __future__ import annotations

import functools
from typing import Any

from google.protobuf import (
    any_pb2,
    duration_pb2,
    empty_pb2,
    field_mask_pb2,
    json_format,
    message,
    struct_pb2,
    timestamp_pb2,
    wrappers_pb2,
)
from google.protobuf.internal import enum_type_wrapper, well_known_types

from sandbox.language.library_rules import LibraryRule, register_library_types
from sandbox.language.rules import refuse

_MEMBERS: dict[str, tuple[Any, tuple[str, ...]]] = {
    "google.protobuf.json_format": (
        json_format,
        (
            "MessageToDict",
            "MessageToJson",
            "Parse",
            "ParseDict",
            "ParseError",
            "SerializeToJsonError",
            "Error",
        ),
    ),
    "google.protobuf.message": (message, ("Message", "DecodeError", "EncodeError", "Error")),
    "google.protobuf.struct_pb2": (struct_pb2, ("Struct", "Value", "ListValue", "NullValue", "NULL_VALUE")),
    "google.protobuf.timestamp_pb2": (timestamp_pb2, ("Timestamp",)),
    "google.protobuf.duration_pb2": (duration_pb2, ("Duration",)),
    "google.protobuf.wrappers_pb2": (
        wrappers_pb2,
        tuple(name for name in dir(wrappers_pb2) if name.endswith("Value")),
    ),
    "google.protobuf.any_pb2": (any_pb2, ("Any",)),
    "google.protobuf.field_mask_pb2": (field_mask_pb2, ("FieldMask",)),
    "google.protobuf.empty_pb2": (empty_pb2, ("Empty",)),
}

MESSAGE_METHODS = frozenset(
    {
        "ByteSize",
        "Clear",
        "ClearField",
        "CopyFrom",
        "DiscardUnknownFields",
        "FindInitializationErrors",
        "FromString",
        "HasField",
        "IsInitialized",
        "ListFields",
        "MergeFrom",
        "MergeFromString",
        "ParseFromString",
        "SerializePartialToString",
        "SerializeToString",
        "SetInParent",
        "WhichOneof",
    }
)
CONTAINER_METHODS = frozenset(
    {
        "MergeFrom",
        "add",
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "reverse",
        "sort",
        "clear",
        "get",
        "get_or_create",
        "items",
        "keys",
        "popitem",
        "setdefault",
        "update",
        "values",
    }
)
ENUM_WRAPPER_NAMES = frozenset({"Name", "Value", "keys", "values", "items"})
FIELD_DESCRIPTOR_NAMES = frozenset({"name", "full_name", "number", "json_name", "camelcase_name"})
CLOSED_REASONS = {
    "DESCRIPTOR": "descriptors lead to the process-wide descriptor pool",
    "RegisterExtension": "it changes the message class for the whole process",
    "Extensions": "extensions are not available",
    "UnknownFields": "unknown fields are not available",
}


def _names_rule(names: frozenset[str]) -> LibraryRule:
    def attribute(obj: Any, name: str, default: tuple[Any, ...]) -> Any:
        if name not in names:
            kind = obj if isinstance(obj, type) else type(obj)
            reason = CLOSED_REASONS.get(name, "it is not on toolpen's list of protobuf's names")
            refuse(f"protobuf: {name!r} of {kind.__name__} is not available in toolpen: {reason}")
        return getattr(obj, name, *default)

    return LibraryRule(attribute)


@functools.cache
def _message_rule(cls: type) -> LibraryRule:
    """A message class's fields, nested types, enum values and well-known helpers, and the message methods."""
    descriptor = cls.DESCRIPTOR  # type: ignore[attr-defined]
    names = set(MESSAGE_METHODS)
    names.update(field.name for field in descriptor.fields)
    names.update(nested.name for nested in descriptor.nested_types)
    for enum in descriptor.enum_types:
        names.add(enum.name)
        names.update(value.name for value in enum.values)
    for base in cls.__mro__:
        if base.__module__ == well_known_types.__name__:
            names.update(name for name in vars(base) if not name.startswith("_"))
    return _names_rule(frozenset(names))


_CONTAINERS = _names_rule(CONTAINER_METHODS)
_NOTHING = _names_rule(frozenset())
_FIELD_DESCRIPTOR = _names_rule(FIELD_DESCRIPTOR_NAMES)
_CONTAINER_NAMES = (
    "RepeatedScalarContainer",
    "RepeatedCompositeContainer",
    "ScalarMapContainer",
    "MessageMapContainer",
)


def _protobuf_rule(cls: type) -> LibraryRule | None:
    """protobuf's classes: messages by their descriptor, containers, enum wrappers; nothing else."""
    if issubclass(cls, message.Message):
        if type(getattr(cls, "DESCRIPTOR", None)).__name__ != "Descriptor":  # the abstract bases
            return _names_rule(MESSAGE_METHODS)
        return _message_rule(cls)
    module = str(type.__dict__["__module__"].__get__(cls))
    if not module.startswith(("google.protobuf", "google._upb")) or issubclass(cls, BaseException):
        return None
    if module == "google._upb._message" and cls.__name__ in _CONTAINER_NAMES:
        return _CONTAINERS
    if module == "google._upb._message" and cls.__name__ == "FieldDescriptor":
        return _FIELD_DESCRIPTOR
    if issubclass(cls, enum_type_wrapper.EnumTypeWrapper):
        return _names_rule(ENUM_WRAPPER_NAMES)
    return _NOTHING


register_library_types(_protobuf_rule)


def members(name: str) -> dict[str, Any]:
    """The members of the view of ``name`` (a ``google.protobuf`` module), submodules apart."""
    if name not in _MEMBERS:
        return {}
    module, names = _MEMBERS[name]
    return {member: getattr(module, member) for member in names if hasattr(module, member)}


def left_out(module: str, member: str) -> str | None:
    """Why the view of ``module`` leaves out ``member``."""
    if module == "google.protobuf":
        return (
            "toolpen's protobuf offers json_format, message and the well-known types (struct_pb2, timestamp_pb2,"
            " duration_pb2, wrappers_pb2, any_pb2, field_mask_pb2, empty_pb2): descriptors and pools change"
            " process-wide state"
        )
    return None
