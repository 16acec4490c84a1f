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


def validate_arguments(parameters: dict[str, Any], args: Any) -> dict[str, Any]:
    """Return ``args`` if they fit ``parameters``; else raise ``InvalidArguments`` naming the parameter."""
    if not isinstance(args, dict):
        raise InvalidArguments(f"arguments must be a JSON object, not {type(args).__name__}")
    known = parameters.get("properties", {})
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
