"""Static reading of Enum, pydantic BaseModel, TypedDict and dataclass classes defined in the tool source."""

from __future__ import annotations

import ast
from typing import Any, Literal, Protocol

from runtime._schema.docstrings import read_docstring
from runtime._schema.fields import MISSING, FieldInfo, apply_field, literal_value
from runtime._schema.scope import Scope
from sandbox.common.diagnostics import Level


class TypeTranslator(Protocol):
    """What reading a class needs of ``typehints.TypeTranslator`` (kept abstract: no import circle)."""

    scope: Scope
    enum_values: dict[str, Any]

    def report(
        self, node: ast.AST, message: str, *, level: Level | None = None, code: str = "schema"
    ) -> None: ...

    def translate_member(self, annotation: ast.expr) -> tuple[dict[str, Any] | None, FieldInfo]: ...

    def read_value(self, value: ast.expr, info: FieldInfo) -> None: ...


ClassKind = Literal["enum", "model", "typeddict", "dataclass"]

_BASE_KINDS: dict[str, ClassKind] = {
    "enum.Enum": "enum",
    "enum.IntEnum": "enum",
    "enum.StrEnum": "enum",
    "pydantic.BaseModel": "model",
    "typing.TypedDict": "typeddict",
}
_DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "dataclass", "pydantic.dataclasses.dataclass"})
_SKIPPED_ANNOTATIONS = frozenset({"typing.ClassVar", "dataclasses.InitVar"})


def class_kind(node: ast.ClassDef, scope: Scope, seen: frozenset[str] = frozenset()) -> ClassKind | None:
    """What kind of schema-bearing class ``node`` is (following local base classes), if any."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if scope.qualname(target) in _DATACLASS_DECORATORS:
            return "dataclass"
    for base in node.bases:
        name = scope.qualname(base)
        if name in _BASE_KINDS:
            return _BASE_KINDS[name]
        if name in scope.classes and name not in seen:
            kind = class_kind(scope.classes[name], scope, seen | {node.name})
            if kind is not None:
                return kind
    return None


def class_schema(node: ast.ClassDef, translator: TypeTranslator) -> dict[str, Any] | None:
    """The ``$defs`` entry of a class, or None when it is not a kind we can read."""
    kind = class_kind(node, translator.scope)
    if kind is None:
        return None
    schema = _enum_schema(node, translator) if kind == "enum" else _object_schema(node, kind, translator)
    description = read_docstring(ast.get_docstring(node)).description
    if description:
        schema["description"] = description
    return schema


def _enum_schema(node: ast.ClassDef, translator: TypeTranslator) -> dict[str, Any]:
    values: list[Any] = []
    is_str_enum = any(translator.scope.qualname(base) in ("enum.StrEnum", "str") for base in node.bases)
    for statement in node.body:
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target = statement.targets[0]
        if not isinstance(target, ast.Name) or target.id.startswith("_"):
            continue
        value = literal_value(statement.value)
        if _is_auto(statement.value, translator.scope):
            value = target.id.lower() if is_str_enum else len(values) + 1
        if value is MISSING:
            translator.report(statement.value, f"enum member '{target.id}' has no literal value")
            continue
        values.append(value)
        translator.enum_values[f"{node.name}.{target.id}"] = value
    kinds = {type(value) for value in values}
    schema: dict[str, Any] = {}
    if kinds == {str}:
        schema["type"] = "string"
    elif kinds == {int}:
        schema["type"] = "integer"
    schema["enum"] = values
    return schema


def _is_auto(node: ast.expr, scope: Scope) -> bool:
    return isinstance(node, ast.Call) and scope.qualname(node.func) in ("enum.auto", "auto")


def _object_schema(node: ast.ClassDef, kind: ClassKind, translator: TypeTranslator) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required: list[str] = []
    closed = False
    for cls in _class_chain(node, translator.scope):
        attribute_docs = read_docstring(ast.get_docstring(cls)).params
        total = _typeddict_total(cls)
        for statement in cls.body:
            if _forbids_extra(statement, translator.scope):
                closed = True
            if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
                continue
            name = statement.target.id
            if _skipped(statement.annotation, translator.scope) or (kind == "model" and name.startswith("_")):
                continue
            schema, info = translator.translate_member(statement.annotation)
            if schema is None:
                continue
            if statement.value is not None:
                translator.read_value(statement.value, info)
            if info.description is None and name in attribute_docs:
                info.description = attribute_docs[name].description
            key = info.alias if kind == "model" and info.alias else name
            properties[key] = apply_field(schema, info)
            if key in required:
                required.remove(key)
            if _is_required(statement.annotation, info, kind, total, translator.scope):
                required.append(key)
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    if closed:
        result["additionalProperties"] = False
    return result


def _class_chain(node: ast.ClassDef, scope: Scope) -> list[ast.ClassDef]:
    """``node`` and its local base classes, bases first (their fields come first, as in pydantic)."""
    chain: list[ast.ClassDef] = []
    pending = [node]
    while pending:
        current = pending.pop()
        if current in chain:
            continue
        chain.insert(0, current)
        pending.extend(
            scope.classes[name]
            for base in current.bases
            if (name := scope.qualname(base)) in scope.classes and scope.classes[name] is not current
        )
    return chain


def _is_required(annotation: ast.expr, info: FieldInfo, kind: ClassKind, total: bool, scope: Scope) -> bool:
    if kind != "typeddict":
        return info.required
    wrapper = scope.qualname(annotation.value) if isinstance(annotation, ast.Subscript) else None
    if wrapper == "typing.Required":
        return True
    if wrapper == "typing.NotRequired":
        return False
    return total


def _typeddict_total(node: ast.ClassDef) -> bool:
    for keyword in node.keywords:
        if keyword.arg == "total" and isinstance(keyword.value, ast.Constant):
            return bool(keyword.value.value)
    return True


def _skipped(annotation: ast.expr, scope: Scope) -> bool:
    target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return scope.qualname(target) in _SKIPPED_ANNOTATIONS


def _forbids_extra(statement: ast.stmt, scope: Scope) -> bool:
    """``model_config = ConfigDict(extra="forbid")`` closes the object."""
    if not (isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call)):
        return False
    targets = [target.id for target in statement.targets if isinstance(target, ast.Name)]
    if targets != ["model_config"]:
        return False
    return any(
        keyword.arg == "extra" and literal_value(keyword.value) == "forbid"
        for keyword in statement.value.keywords
    )
