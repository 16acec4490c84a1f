"""Validate a call's arguments against the tool's JSON Schema before anything runs."""

from __future__ import annotations

import json
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from runtime._schema.quick_accept import arguments_check
from sandbox.common.errors import InvalidArguments

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError


def _describe(error: ValidationError) -> str:
    where = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "required" and not where:
        return f"missing required argument: {error.message.split(' is a required')[0]}"
    if not where:
        return error.message
    return f"argument {where!r}: {error.message}"


def _accepts_null(schema: dict[str, Any]) -> bool:
    kinds = schema.get("type")
    return (
        kinds == "null"
        or (isinstance(kinds, list) and "null" in kinds)
        or any(_accepts_null(option) for option in schema.get("anyOf", []))
    )


def _nested_absent_nulls(schema: dict[str, Any], defs: dict[str, Any], seen: frozenset[str]) -> bool:
    """Whether an object inside ``schema`` has an optional property that refuses null (a null
    there, as strict mode sends for "absent", is dropped so that the field's default applies)."""
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return name not in seen and _nested_absent_nulls(defs.get(name, {}), defs, seen | {name})
    required = set(schema.get("required", ()))
    properties: dict[str, Any] = schema.get("properties", {})
    children = [
        *properties.values(),
        *schema.get("anyOf", ()),
        *schema.get("prefixItems", ()),
        *(value for key in ("items", "additionalProperties") if isinstance(value := schema.get(key), dict)),
    ]
    return any(name not in required and not _accepts_null(sub) for name, sub in properties.items()) or any(
        _nested_absent_nulls(child, defs, seen) for child in children
    )


def _without_absent_nulls(value: Any, schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """``value`` with the nulls of optional, null-refusing object properties dropped, at every depth."""
    if "$ref" in schema:
        schema = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1], {})
    branches = [branch for branch in schema.get("anyOf", ()) if branch.get("type") != "null"]
    if len(branches) == 1:
        return _without_absent_nulls(value, branches[0], defs)
    if isinstance(value, dict):
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        extra = schema.get("additionalProperties")
        kept = {}
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if sub is None:
                kept[key] = item
            elif item is None and key in properties and key not in required and not _accepts_null(sub):
                continue
            else:
                kept[key] = _without_absent_nulls(item, sub, defs)
        return kept
    if isinstance(value, list):
        prefix: list[dict[str, Any]] = schema.get("prefixItems", [])
        items = schema.get("items")
        rest: dict[str, Any] = items if isinstance(items, dict) else {}
        return [
            _without_absent_nulls(item, prefix[index] if index < len(prefix) else rest, defs)
            for index, item in enumerate(value)
        ]
    return value


class ArgumentValidator:
    """One tool's parameters schema, compiled once; call it with the arguments of each call."""

    def __init__(self, parameters: dict[str, Any]) -> None:
        self.parameters = parameters
        self.properties: dict[str, Any] = parameters.get("properties", {})
        self.names = frozenset(self.properties)
        # strict-mode models send null for "absent": dropped for optional parameters that refuse it
        required = set(parameters.get("required", ()))
        self.null_means_absent = frozenset(
            name
            for name, schema in self.properties.items()
            if name not in required and not _accepts_null(schema)
        )
        self.defs: dict[str, Any] = parameters.get("$defs", {})
        self.nested_nulls = any(
            _nested_absent_nulls(schema, self.defs, frozenset()) for schema in self.properties.values()
        )
        """Whether nested objects drop their null-for-absent fields too (``_without_absent_nulls``)."""
        self.certainly_valid = arguments_check(parameters)
        """Accepts most calls at once; jsonschema decides the others and words their errors."""

    @cached_property
    def validator(self) -> Draft202012Validator:
        """The full check (0.1 s to import: paid by the first call that needs it, not at start-up)."""
        from jsonschema import Draft202012Validator

        return Draft202012Validator(self.parameters, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def __call__(self, args: Any) -> dict[str, Any]:
        """The arguments to call with if ``args`` fit; else ``InvalidArguments`` naming the parameter."""
        if not isinstance(args, dict):
            raise InvalidArguments(f"arguments must be a JSON object, not {type(args).__name__}")
        args = dict(args)
        if self.null_means_absent and None in args.values():
            args = {
                key: value
                for key, value in args.items()
                if value is not None or key not in self.null_means_absent
            }
        if self.nested_nulls:
            args = {
                key: _without_absent_nulls(value, self.properties[key], self.defs)
                if key in self.properties
                else value
                for key, value in args.items()
            }
        if not self.names.issuperset(args):
            unknown = sorted(set(args) - self.names)
            expected = ", ".join(self.properties) or "none"
            raise InvalidArguments(f"unknown argument(s): {', '.join(unknown)}; expected: {expected}")
        if self.certainly_valid is not None and self.certainly_valid(args):
            return args
        errors = sorted(self.validator.iter_errors(args), key=lambda e: list(e.absolute_path))
        if errors:
            raise InvalidArguments("; ".join(_describe(error) for error in errors[:5]))
        return args


@lru_cache(maxsize=256)
def _compiled(schema_json: str) -> ArgumentValidator:
    return ArgumentValidator(json.loads(schema_json))


def validate_arguments(parameters: dict[str, Any], args: Any) -> dict[str, Any]:
    """``ArgumentValidator(parameters)(args)``, with the compiled validator cached by schema."""
    return _compiled(json.dumps(parameters, sort_keys=True))(args)
