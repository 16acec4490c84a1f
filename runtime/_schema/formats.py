"""One ToolSpec lowered to the tool definition each target API expects, with notes on what changed."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from runtime._schema.fields import admits_null
from runtime._schema.reader import ToolSpec
from sandbox.common.errors import InvalidSource

Format = Literal["openai", "responses", "gemini", "mcp"]
FORMATS: tuple[str, ...] = get_args(Format)

_NAME_RULES: dict[str, tuple[re.Pattern[str], str]] = {
    "openai": (re.compile(r"^[A-Za-z0-9_-]{1,64}$"), "1-64 letters, digits, '_' or '-'"),
    "responses": (re.compile(r"^[A-Za-z0-9_-]{1,64}$"), "1-64 letters, digits, '_' or '-'"),
    "gemini": (
        re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$"),
        "a letter or '_' then letters, digits, '_', '.', ':' or '-', at most 64 characters",
    ),
    "mcp": (re.compile(r"^[A-Za-z0-9_.-]{1,128}$"), "1-128 letters, digits, '_', '.' or '-'"),
}

_STRICT_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf"}
    | {"$ref", "$defs", "description", "pattern", "format", "minimum", "maximum", "exclusiveMinimum"}
    | {"exclusiveMaximum", "multipleOf", "minItems", "maxItems", "prefixItems"}
)
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_GEMINI_KEYWORDS = frozenset(
    {"type", "format", "description", "nullable", "enum", "items", "properties", "required", "anyOf"}
    | {"minItems", "maxItems", "minimum", "maximum", "minLength", "maxLength", "pattern", "default"}
    | {"example", "minProperties", "maxProperties"}
)
_GEMINI_FORMATS = {
    "string": {"date-time", "enum"},
    "number": {"float", "double"},
    "integer": {"int32", "int64", "enum"},
}
_TUPLE_NOTE = "fixed-length tuple written as an array of any of its item types (checked in order when called)"
FREE_FORM_NOTE = "strict mode cannot describe free-form objects (dict): only {} is accepted"
"""The note of a strict schema that closed a dict's object (the Agents SDK sends such a tool non-strict)."""
GEMINI_RECURSION_DEPTH = 3
"""How many times a recursive class is inlined for Gemini before it is cut to a bare object."""


@dataclass(frozen=True)
class Lowered:
    """A tool definition for one target, and notes on what had to change to fit it."""

    schema: dict[str, Any]
    notes: list[str] = field(default_factory=list)


class _Notes:
    """Collects one note per kind of change, naming every place it happened."""

    def __init__(self) -> None:
        self._places: dict[str, list[str]] = {}

    def add(self, change: str, path: str) -> None:
        places = self._places.setdefault(change, [])
        if path not in places:
            places.append(path)

    def lines(self) -> list[str]:
        return [f"{change} ({', '.join(places)})" for change, places in self._places.items()]


def lower(spec: ToolSpec, fmt: str, *, strict: bool = False) -> Lowered:
    """``spec`` as a tool definition for ``fmt`` (one of ``FORMATS``); ``strict`` for openai/responses."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    pattern, rule = _NAME_RULES[fmt]
    if not pattern.match(spec.name):
        raise InvalidSource(
            f"tool name '{spec.name}' is not valid for {fmt}: {rule}", line=spec.lineno, col=1
        )
    notes = _Notes()
    if not spec.description:
        notes.add("no description: the model sees only the name", spec.name)
    if strict and fmt in ("gemini", "mcp"):
        notes.add(f"--strict applies to openai and responses only; {fmt} has no strict mode", spec.name)
    schema = _LOWERINGS[fmt](spec, strict, notes)
    return Lowered(schema=schema, notes=notes.lines())


def _openai(spec: ToolSpec, strict: bool, notes: _Notes) -> dict[str, Any]:
    function: dict[str, Any] = {"name": spec.name, "description": spec.description}
    function["parameters"] = _strict_schema(spec.parameters, notes) if strict else spec.parameters
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def _responses(spec: ToolSpec, strict: bool, notes: _Notes) -> dict[str, Any]:
    parameters = _strict_schema(spec.parameters, notes) if strict else spec.parameters
    # The Responses API treats a missing `strict` as true, which would reject a non-strict schema.
    return {
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": parameters,
        "strict": strict,
    }


def _mcp(spec: ToolSpec, strict: bool, notes: _Notes) -> dict[str, Any]:
    return {"name": spec.name, "description": spec.description, "inputSchema": spec.parameters}


def _gemini(spec: ToolSpec, strict: bool, notes: _Notes) -> dict[str, Any]:
    declaration: dict[str, Any] = {"name": spec.name, "description": spec.description}
    if not spec.parameters.get("properties"):
        notes.add("no parameters: 'parameters' is left out (Gemini refuses an empty object)", spec.name)
        return declaration
    defs = spec.parameters.get("$defs", {})
    declaration["parameters"] = _GeminiLowering(defs, notes).lower(spec.parameters, "", ())
    return declaration


_LOWERINGS: dict[str, Callable[[ToolSpec, bool, _Notes], dict[str, Any]]] = {
    "openai": _openai,
    "responses": _responses,
    "gemini": _gemini,
    "mcp": _mcp,
}


def _strict_schema(schema: dict[str, Any], notes: _Notes) -> dict[str, Any]:
    """OpenAI strict mode: closed objects, every property required (optional ones nullable)."""
    return _strict_node(copy.deepcopy(schema), notes, "")


def _strict_node(schema: dict[str, Any], notes: _Notes, path: str) -> dict[str, Any]:
    """One node in strict mode's subset. A keyword it refuses is removed with a note; the call's
    arguments are still checked against the derived schema (``uniqueItems`` and all)."""
    if _untyped(schema):
        notes.add("strict mode needs a type: an untyped (Any) value will be refused", path or "parameters")
    for keyword in [key for key in schema if key not in _STRICT_KEYWORDS]:
        notes.add(f"strict mode refuses '{keyword}': removed", path or "parameters")
        del schema[keyword]
    if "format" in schema and schema["format"] not in _STRICT_FORMATS:
        notes.add(f"strict mode refuses format '{schema.pop('format')}': removed", path or "parameters")
    for name, definition in schema.get("$defs", {}).items():
        schema["$defs"][name] = _strict_node(definition, notes, f"$defs.{name}")
    if "items" in schema:
        schema["items"] = _strict_node(schema["items"], notes, f"{path}[]")
    if "prefixItems" in schema:
        schema["prefixItems"] = [
            _strict_node(item, notes, f"{path}[{index}]") for index, item in enumerate(schema["prefixItems"])
        ]
    if "anyOf" in schema:
        schema["anyOf"] = [_strict_node(branch, notes, path) for branch in schema["anyOf"]]
    if schema.get("type") != "object":
        return schema
    extra = schema.get("additionalProperties")
    if extra not in (None, False) and not schema.get("properties"):
        notes.add(FREE_FORM_NOTE, path or "parameters")
    properties = schema.setdefault("properties", {})
    required = set(schema.get("required", ()))
    for name, subschema in properties.items():
        where = f"{path}.{name}" if path else name
        lowered = _strict_node(subschema, notes, where)
        if name not in required:
            notes.add("optional properties made required and nullable (strict mode)", where)
            lowered = _nullable(lowered)
        properties[name] = lowered
    schema["required"] = list(properties)
    schema["additionalProperties"] = False
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also accepts ``null``, in the form strict mode takes."""
    if admits_null(schema):
        return schema
    kind = schema.get("type")
    if isinstance(kind, str) and "$ref" not in schema and "anyOf" not in schema:
        result = {**schema, "type": [kind, "null"]}
        if "enum" in result:
            result["enum"] = [*result["enum"], None]
        if "const" in result:
            result["enum"] = [result.pop("const"), None]
        return result
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    outer = {key: schema[key] for key in ("description",) if key in schema}
    inner = {key: value for key, value in schema.items() if key != "description"}
    return {"anyOf": [inner, {"type": "null"}], **outer}


class _GeminiLowering:
    """Rewrites JSON Schema into the OpenAPI subset of Gemini's FunctionDeclaration.parameters."""

    def __init__(self, defs: dict[str, Any], notes: _Notes) -> None:
        self.defs = defs
        self.notes = notes

    def lower(self, schema: dict[str, Any], path: str, expanding: tuple[str, ...]) -> dict[str, Any]:
        where = path or "parameters"
        if "$ref" in schema:
            return self._inline(schema, path, expanding)
        if "anyOf" in schema or "oneOf" in schema:
            return self._any_of(schema, path, expanding)
        if _untyped(schema):
            self.notes.add("Gemini needs a type: an untyped (Any) value is left without one", where)
        result: dict[str, Any] = {}
        kind = schema.get("type")
        if isinstance(kind, list):
            others = [item for item in kind if item != "null"]
            kind = others[0] if others else None
            result["nullable"] = True
        if kind == "null":
            self.notes.add("Gemini has no null type: written as a nullable value", where)
            return {"nullable": True, **_kept(schema, ("description",))}
        if kind is not None:
            result["type"] = kind
        for keyword, value in schema.items():
            if keyword == "type":
                continue
            if keyword == "properties":
                result["properties"] = {
                    name: self.lower(sub, f"{path}.{name}" if path else name, expanding)
                    for name, sub in value.items()
                }
            elif keyword == "items":
                result["items"] = self.lower(value, f"{path}[]", expanding)
            elif keyword == "additionalProperties":
                # a dict's value schema (Schema.additional_properties: a bool or a schema)
                result["additionalProperties"] = (
                    self.lower(value, f"{path}{{}}", expanding) if isinstance(value, dict) else value
                )
            elif keyword == "prefixItems":
                self.notes.add(_TUPLE_NOTE, where)
                result["items"] = self.lower(_any_of_items(value), f"{path}[]", expanding)
            elif keyword == "const":
                result["enum"] = [value]
            elif keyword == "examples" and value:
                result["example"] = value[0]
            elif keyword in _GEMINI_KEYWORDS:
                result[keyword] = value
            elif keyword != "$defs":
                self.notes.add(f"Gemini does not accept '{keyword}': removed", where)
        return self._fit_enum_and_format(result, where)

    def _fit_enum_and_format(self, result: dict[str, Any], where: str) -> dict[str, Any]:
        if result.get("type") == "integer" and _integers(result.get("enum")):
            # Gemini's own form of an integer enum: format "enum", the values written as strings
            result["enum"] = [str(value) for value in result["enum"]]
            result["format"] = "enum"
        elif "enum" in result and not all(isinstance(value, str) for value in result["enum"]):
            values = ", ".join(str(value) for value in result.pop("enum"))
            result["description"] = _joined(result.get("description"), f"One of: {values}.")
            self.notes.add("Gemini enums hold strings only: other values moved to the description", where)
        elif "enum" in result:
            result.setdefault("type", "string")
        fmt = result.get("format")
        if fmt is not None and fmt not in _GEMINI_FORMATS.get(str(result.get("type")), set()):
            del result["format"]
            result["description"] = _joined(result.get("description"), f"Format: {fmt}.")
            self.notes.add(f"Gemini does not accept format '{fmt}': moved to the description", where)
        return result

    def _inline(self, schema: dict[str, Any], path: str, expanding: tuple[str, ...]) -> dict[str, Any]:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        if expanding.count(name) >= GEMINI_RECURSION_DEPTH:
            self.notes.add(
                f"recursive type '{name}' cut after {GEMINI_RECURSION_DEPTH} levels to a bare object",
                path or "parameters",
            )
            return self.lower({"type": "object", **siblings}, path, expanding)
        return self.lower({**self.defs[name], **siblings}, path, (*expanding, name))

    def _any_of(self, schema: dict[str, Any], path: str, expanding: tuple[str, ...]) -> dict[str, Any]:
        if "oneOf" in schema:
            self.notes.add("'oneOf' written as 'anyOf'", path or "parameters")
        branches = schema.get("anyOf") or schema["oneOf"]
        nullable = {"type": "null"} in branches
        rest = {key: value for key, value in schema.items() if key not in ("anyOf", "oneOf")}
        for keyword in [key for key in rest if key not in _GEMINI_KEYWORDS]:
            self.notes.add(f"Gemini does not accept '{keyword}': removed", path or "parameters")
            del rest[keyword]
        lowered = [self.lower(branch, path, expanding) for branch in branches if branch != {"type": "null"}]
        if len(lowered) == 1:
            merged = {**lowered[0], **rest}
            return {**merged, "nullable": True} if nullable else merged
        if rest:
            self.notes.add(
                "'anyOf' stands alone in Gemini: description and default moved into its branches",
                path or "parameters",
            )
        for branch in lowered:
            branch.update({key: value for key, value in rest.items() if key not in branch})
            if nullable:
                branch["nullable"] = True
        return {"anyOf": lowered}


def _any_of_items(prefix: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``items`` schema for the members of a fixed-length tuple, for targets without ``prefixItems``."""
    unique = [item for index, item in enumerate(prefix) if item not in prefix[:index]]
    return unique[0] if len(unique) == 1 else {"anyOf": unique}


def _integers(values: Any) -> bool:
    return (
        isinstance(values, list)
        and bool(values)
        and all(isinstance(value, int) and not isinstance(value, bool) for value in values)
    )


def _untyped(schema: dict[str, Any]) -> bool:
    return not any(key in schema for key in ("type", "$ref", "anyOf", "oneOf", "enum", "const"))


def _kept(schema: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: schema[key] for key in keys if key in schema}


def _joined(description: str | None, addition: str) -> str:
    return f"{description} {addition}" if description else addition
