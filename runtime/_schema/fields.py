"""Static reading of defaults, ``Field(...)`` / ``field(...)`` calls and their constraints."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

MISSING: Any = object()
"""Marks a value that could not be read statically (or was not given)."""

FIELD_CALLS = frozenset({"pydantic.Field", "Field", "dataclasses.field", "field"})

_NUMBER_CONSTRAINTS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "multiple_of": "multipleOf",
}
_STRING_CONSTRAINTS = {"min_length": "minLength", "max_length": "maxLength", "pattern": "pattern"}
_ARRAY_CONSTRAINTS = {"min_length": "minItems", "max_length": "maxItems"}
_OBJECT_CONSTRAINTS = {"min_length": "minProperties", "max_length": "maxProperties"}
_CONSTRAINT_NAMES = frozenset(_NUMBER_CONSTRAINTS) | frozenset(_STRING_CONSTRAINTS)


@dataclass
class FieldInfo:
    """What a ``Field(...)`` call (or a plain default) says about one parameter or field."""

    default: Any = MISSING
    has_factory: bool = False
    description: str | None = None
    alias: str | None = None
    examples: list[Any] | None = None
    constraints: dict[str, Any] = field(default_factory=dict)
    unreadable: list[str] = field(default_factory=list)

    @property
    def required(self) -> bool:
        return self.default is MISSING and not self.has_factory

    def merge(self, other: FieldInfo, *, with_default: bool) -> None:
        """Take what ``other`` says (its default too when ``with_default``) over what this says."""
        if with_default:
            self.default, self.has_factory = other.default, other.has_factory
        self.description = other.description or self.description
        self.alias = other.alias or self.alias
        self.examples = other.examples or self.examples
        self.constraints.update(other.constraints)


def literal_value(node: ast.expr, enum_values: dict[str, Any] | None = None) -> Any:
    """The JSON value of a literal expression, or ``MISSING`` if it is not one.

    ``enum_values`` maps ``Class.MEMBER`` spellings of statically read enums to their values.
    """
    if isinstance(node, ast.Constant):
        value = node.value
        return value if value is None or isinstance(value, str | int | float | bool) else MISSING
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = literal_value(node.operand)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
        return MISSING
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items = [literal_value(item, enum_values) for item in node.elts]
        return MISSING if any(item is MISSING for item in items) else items
    if isinstance(node, ast.Dict):
        result: dict[str, Any] = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            key_value = literal_value(key_node) if key_node is not None else MISSING
            item = literal_value(value_node, enum_values)
            if not isinstance(key_value, str) or item is MISSING:
                return MISSING
            result[key_value] = item
        return result
    if enum_values and isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return enum_values.get(f"{node.value.id}.{node.attr}", MISSING)
    return MISSING


def read_field_call(call: ast.Call, enum_values: dict[str, Any] | None = None) -> FieldInfo:
    """Read ``Field(default, *, description=..., ge=..., default_factory=...)`` statically."""
    info = FieldInfo()
    if call.args:
        first = call.args[0]
        if not (isinstance(first, ast.Constant) and first.value is Ellipsis):
            info.default = literal_value(first, enum_values)
            if info.default is MISSING:
                info.has_factory = True
                info.unreadable.append("default")
    for keyword in call.keywords:
        name = keyword.arg
        value = literal_value(keyword.value, enum_values)
        if name == "default":
            if isinstance(keyword.value, ast.Constant) and keyword.value.value is Ellipsis:
                continue
            info.default = value
            if value is MISSING:
                info.has_factory = True
                info.unreadable.append("default")
        elif name == "default_factory":
            info.has_factory = True
        elif name == "description" and isinstance(value, str):
            info.description = value
        elif name in ("alias", "validation_alias") and isinstance(value, str):
            info.alias = value
        elif name == "examples" and isinstance(value, list):
            info.examples = value
        elif name in _CONSTRAINT_NAMES:
            if value is MISSING:
                info.unreadable.append(name)
            else:
                info.constraints[name] = value
    return info


def apply_field(schema: dict[str, Any], info: FieldInfo) -> dict[str, Any]:
    """A copy of ``schema`` with the constraints, description, examples and default of ``info``.

    ``x: str = None`` makes ``x`` optional without a ``default: null`` that its own schema refuses.
    """
    result = _apply_constraints(schema, info.constraints) if info.constraints else dict(schema)
    if info.description is not None:
        result["description"] = info.description
    if info.examples is not None:
        result["examples"] = info.examples
    if info.default is not MISSING and (info.default is not None or admits_null(schema)):
        result["default"] = info.default
    return result


def admits_null(schema: dict[str, Any]) -> bool:
    """Whether ``null`` fits ``schema``; a ``None`` default of a type that refuses it is left out."""
    if not schema or schema.get("type") == "null":
        return True
    return any(branch.get("type") == "null" for branch in schema.get("anyOf", ()))


def _apply_constraints(schema: dict[str, Any], constraints: dict[str, Any]) -> dict[str, Any]:
    """Constraints go where pydantic puts them: on the non-null branch of an Optional."""
    branches = schema.get("anyOf")
    if branches is not None:
        not_null = [branch for branch in branches if branch != {"type": "null"}]
        if len(not_null) == 1:
            index = branches.index(not_null[0])
            new_branches = list(branches)
            new_branches[index] = _apply_constraints(not_null[0], constraints)
            return {**schema, "anyOf": new_branches}
    kind = schema.get("type")
    by_kind = {"array": _ARRAY_CONSTRAINTS, "object": _OBJECT_CONSTRAINTS}.get(str(kind), {})
    table = {**_NUMBER_CONSTRAINTS, **_STRING_CONSTRAINTS, **by_kind}
    result = dict(schema)
    for name, value in constraints.items():
        result[table[name]] = value
    return result


def enum_schema(values: list[Any]) -> dict[str, Any]:
    """``{"type", "enum"}`` (or ``const`` for a single value), typed when all values share a type."""
    kinds = {_json_type(value) for value in values}
    schema: dict[str, Any] = {"type": kinds.pop()} if len(kinds) == 1 else {}
    if len(values) == 1:
        schema["const"] = values[0]
    else:
        schema["enum"] = values
    return schema


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"
