"""Validate a call's arguments against the tool's JSON Schema before anything runs."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from runtime.errors import InvalidArguments


@lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json), format_checker=Draft202012Validator.FORMAT_CHECKER)


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


def _without_strict_nulls(parameters: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Drop ``null`` for optional parameters that do not take it: strict-mode models send it for "absent"."""
    required = set(parameters.get("required", ()))
    properties = parameters.get("properties", {})
    return {
        key: value
        for key, value in args.items()
        if value is not None or key in required or key not in properties or _accepts_null(properties[key])
    }


def validate_arguments(parameters: dict[str, Any], args: Any) -> dict[str, Any]:
    """The arguments to call with if ``args`` fit ``parameters``; else ``InvalidArguments`` naming the parameter."""
    if not isinstance(args, dict):
        raise InvalidArguments(f"arguments must be a JSON object, not {type(args).__name__}")
    known = parameters.get("properties", {})
    args = _without_strict_nulls(parameters, args)
    unknown = sorted(set(args) - set(known))
    if unknown:
        raise InvalidArguments(
            f"unknown argument(s): {', '.join(unknown)}; expected: {', '.join(known) or 'none'}"
        )
    errors = sorted(
        _validator(json.dumps(parameters, sort_keys=True)).iter_errors(args),
        key=lambda e: list(e.absolute_path),
    )
    if errors:
        raise InvalidArguments("; ".join(_describe(error) for error in errors[:5]))
    return args
