"""Annotations (ast nodes) -> JSON Schema, statically, in the style of pydantic without titles."""

from __future__ import annotations

import ast
from typing import Any

from runtime._schema.classes import class_schema
from runtime._schema.fields import (
    MISSING,
    FieldInfo,
    apply_field,
    enum_schema,
    literal_value,
    read_field_call,
)
from runtime._schema.scope import Scope
from sandbox.common.diagnostics import Diagnostic, Level
from sandbox.common.errors import InvalidSource
from sandbox.common.parsing import parse_expression

_SCALARS: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "bytes": {"type": "string", "format": "binary"},
    "None": {"type": "null"},
    "NoneType": {"type": "null"},
    "types.NoneType": {"type": "null"},
    "object": {},
    "typing.Any": {},
    "datetime.datetime": {"type": "string", "format": "date-time"},
    "datetime.date": {"type": "string", "format": "date"},
    "datetime.time": {"type": "string", "format": "time"},
    "datetime.timedelta": {"type": "string", "format": "duration"},
    "uuid.UUID": {"type": "string", "format": "uuid"},
    "decimal.Decimal": {"type": "string", "format": "decimal"},
}
_LISTS = frozenset({"list", "typing.List", "typing.Sequence", "typing.MutableSequence", "typing.Iterable"})
_SETS = frozenset(
    {"set", "frozenset", "typing.Set", "typing.FrozenSet", "typing.AbstractSet", "typing.MutableSet"}
)
_TUPLES = frozenset({"tuple", "typing.Tuple"})
_DICTS = frozenset({"dict", "typing.Dict", "typing.Mapping", "typing.MutableMapping"})
_TYPEDDICT_WRAPPERS = frozenset({"typing.Required", "typing.NotRequired", "typing.ReadOnly"})


class TypeTranslator:
    """Translates annotations of one module; collects ``$defs`` and located diagnostics."""

    def __init__(self, scope: Scope, *, level: Level = "error") -> None:
        self.scope = scope
        self.level: Level = level
        self.defs: dict[str, dict[str, Any]] = {}
        self.diagnostics: list[Diagnostic] = []
        self.enum_values: dict[str, Any] = {}
        self._expanding_aliases: set[str] = set()

    def report(
        self, node: ast.AST, message: str, *, level: Level | None = None, code: str = "schema"
    ) -> None:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + 1
        self.diagnostics.append(Diagnostic(level or self.level, message, line, col, code))

    def translate(self, node: ast.expr) -> dict[str, Any] | None:
        """The JSON Schema of an annotation; None (with a diagnostic) when it has none."""
        if isinstance(node, ast.Constant):
            if node.value is None:
                return {"type": "null"}
            if isinstance(node.value, str):
                return self._translate_string(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self._union([node.left, node.right])
        if isinstance(node, ast.Subscript):
            return self._translate_generic(node)
        name = self.scope.qualname(node)
        if name is None:
            return self._untranslatable(node)
        if name in _SCALARS:
            return dict(_SCALARS[name])
        if name in _LISTS:
            return {"type": "array", "items": {}}
        if name in _SETS:
            return {"type": "array", "items": {}, "uniqueItems": True}
        if name in _TUPLES:
            return {"type": "array", "items": {}}
        if name in _DICTS:
            return {"type": "object", "additionalProperties": True}
        if name in self.scope.classes:
            return self._class_ref(name, node)
        if name in self.scope.aliases:
            return self._expand_alias(name, node)
        return self._untranslatable(node)

    def translate_member(self, annotation: ast.expr) -> tuple[dict[str, Any] | None, FieldInfo]:
        """Translate a parameter or field annotation, splitting off ``Annotated`` metadata."""
        info = FieldInfo()
        node = annotation
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            parsed = self._parse_string(node)
            if parsed is None:
                return None, info
            node = parsed
        while isinstance(node, ast.Subscript) and self.scope.qualname(node.value) in _TYPEDDICT_WRAPPERS:
            node = node.slice
        if isinstance(node, ast.Subscript) and self.scope.qualname(node.value) == "typing.Annotated":
            elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for meta in elements[1:]:
                self._read_metadata(meta, info)
            node = elements[0]
        return self.translate(node), info

    def _read_metadata(self, meta: ast.expr, info: FieldInfo) -> None:
        if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
            info.description = meta.value
        elif isinstance(meta, ast.Call) and self.scope.is_field_call(meta):
            found = self._field_call(meta)
            # Annotated[int, Field(default=3)] is optional, as pydantic makes it (a default written after wins)
            info.merge(found, with_default=found.default is not MISSING or found.has_factory)

    def read_value(self, value: ast.expr, info: FieldInfo) -> None:
        """Merge what a default says (a literal or a ``Field(...)`` call) into ``info``."""
        if isinstance(value, ast.Call) and self.scope.is_field_call(value):
            info.merge(self._field_call(value), with_default=True)
            return
        info.default = literal_value(value, self.enum_values)
        if info.default is MISSING:
            info.has_factory = True
            self.report(value, "default is not a literal; it is left out of the schema", level="warning")

    def _field_call(self, call: ast.Call) -> FieldInfo:
        found = read_field_call(call, self.enum_values)
        for name in found.unreadable:
            self.report(call, f"cannot read '{name}=' of Field() statically", level="warning")
        return found

    def _translate_generic(self, node: ast.Subscript) -> dict[str, Any] | None:
        name = self.scope.qualname(node.value)
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name == "typing.Optional":
            return self._union([args[0], ast.Constant(value=None)])
        if name == "typing.Union":
            return self._union(args)
        if name == "typing.Literal":
            return self._literal(args)
        if name == "typing.Annotated" or name in _TYPEDDICT_WRAPPERS:
            inner, info = self.translate_member(node)
            return None if inner is None else apply_field(inner, info)
        if name in _LISTS or name in _SETS:
            items = self.translate(args[0])
            if items is None:
                return None
            schema: dict[str, Any] = {"type": "array", "items": items}
            if name in _SETS:
                schema["uniqueItems"] = True
            return schema
        if name in _TUPLES:
            return self._tuple(args)
        if name in _DICTS:
            return self._dict(node, args)
        return self._untranslatable(node)

    def _union(self, members: list[ast.expr]) -> dict[str, Any] | None:
        branches: list[dict[str, Any]] = []
        for member in members:
            schema = self.translate(member)
            if schema is None:
                return None
            for branch in schema["anyOf"] if list(schema) == ["anyOf"] else [schema]:
                if branch not in branches:
                    branches.append(branch)
        if {} in branches:
            return {}
        return branches[0] if len(branches) == 1 else {"anyOf": branches}

    def _literal(self, args: list[ast.expr]) -> dict[str, Any] | None:
        values: list[Any] = []
        for arg in args:
            value = literal_value(arg, self.enum_values)
            if isinstance(arg, ast.Subscript) and self.scope.qualname(arg.value) == "typing.Literal":
                nested = arg.slice.elts if isinstance(arg.slice, ast.Tuple) else [arg.slice]
                values.extend(literal_value(item) for item in nested)
            elif value is MISSING or isinstance(value, list | dict):
                self.report(arg, f"Literal value '{ast.unparse(arg)}' is not a str, int, float, bool or None")
                return None
            else:
                values.append(value)
        non_null = [value for value in values if value is not None]
        schema = enum_schema(non_null)
        if len(non_null) == len(values):
            return schema
        null: dict[str, Any] = {"type": "null"}
        return {"anyOf": [schema, null]} if non_null else null

    def _tuple(self, args: list[ast.expr]) -> dict[str, Any] | None:
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            items = self.translate(args[0])
            return None if items is None else {"type": "array", "items": items}
        if not args:  # tuple[()]
            return {"type": "array", "maxItems": 0}
        prefix = [self.translate(arg) for arg in args]
        if any(item is None for item in prefix):
            return None
        return {"type": "array", "prefixItems": prefix, "minItems": len(args), "maxItems": len(args)}

    def _dict(self, node: ast.Subscript, args: list[ast.expr]) -> dict[str, Any] | None:
        if len(args) != 2:
            return self._untranslatable(node)
        key = self.translate(args[0])
        if key is None:
            return None
        if key.get("type") != "string":
            self.report(
                args[0], f"JSON object keys are strings; '{ast.unparse(args[0])}' keys cannot be expressed"
            )
            return None
        value = self.translate(args[1])
        if value is None:
            return None
        schema: dict[str, Any] = {"type": "object", "additionalProperties": value or True}
        if "enum" in key or "const" in key or "format" in key:
            schema["propertyNames"] = key
        return schema

    def _class_ref(self, dotted: str, node: ast.expr) -> dict[str, Any] | None:
        name = self.scope.classes[dotted].name  # a nested class's $defs key is its own name, as pydantic's
        if name not in self.defs:
            placeholder: dict[str, Any] = {}
            self.defs[name] = placeholder
            schema = class_schema(self.scope.classes[dotted], self)
            if schema is None:
                del self.defs[name]
                return self._untranslatable(
                    node, f"class '{name}' is not an Enum, BaseModel, TypedDict or dataclass"
                )
            placeholder.update(schema)
        return {"$ref": f"#/$defs/{name}"}

    def _expand_alias(self, name: str, node: ast.expr) -> dict[str, Any] | None:
        if name in self._expanding_aliases:
            self.report(node, f"type alias '{name}' refers to itself; use a class for recursive types")
            return None
        self._expanding_aliases.add(name)
        try:
            return self.translate(self.scope.aliases[name])
        finally:
            self._expanding_aliases.discard(name)

    def _translate_string(self, node: ast.Constant) -> dict[str, Any] | None:
        parsed = self._parse_string(node)
        return None if parsed is None else self.translate(parsed)

    def _parse_string(self, node: ast.Constant) -> ast.expr | None:
        """Parse a string annotation, keeping locations in the tool source."""
        try:
            parsed = parse_expression(str(node.value).strip())
        except InvalidSource:
            self.report(node, f"string annotation {node.value!r} is not a valid expression")
            return None
        for inner in ast.walk(parsed):
            if isinstance(inner, ast.expr):
                first_line = inner.lineno == 1
                inner.lineno += node.lineno - 1
                if first_line:
                    inner.col_offset += node.col_offset + 1
        return parsed

    def _untranslatable(self, node: ast.expr, reason: str | None = None) -> dict[str, Any] | None:
        """Report ``node`` and give None, so that callers can ``return self._untranslatable(...)``."""
        self.report(node, reason or f"cannot translate the annotation '{ast.unparse(node)}' to JSON Schema")
        return None
