"""A quick check that accepts arguments certainly valid against a tool's parameters schema.

Validating with ``jsonschema`` walks the schema anew for each call (a validator per keyword and
per level): most of what the host does for a trivial call. The schemas tools derive are mostly
plain: a type, an enum of strings, an array's items, an ``anyOf``. For those, this module builds
once a check made of a few ``type(value) is ...`` tests. It only ever says "certainly valid":
on ``False`` (a wrong value, or a keyword it does not know) the caller runs ``jsonschema``,
which decides and words the error. So it must never accept what ``jsonschema`` refuses: it
knows exact built-in types only (a subclass, a float for ``integer``, a ``format``, a
``$ref``, a bound: all left to ``jsonschema``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

Check = Callable[[Any], bool]
"""True when a value is certainly valid; False when ``jsonschema`` must decide."""

ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "$comment"})
"""Keywords that never make a value invalid."""

_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),  # exactly int: bool is not, and a float such as 1.0 is left to jsonschema
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
    "array": (list,),
    "object": (dict,),
}
_VALUE_KEYWORDS = frozenset({"type", "enum", "items", "anyOf", "additionalProperties"})
_TOP_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "$defs"})


def value_check(schema: Any) -> Check | None:
    """The check of one value against ``schema``; None when the schema has a keyword it does not know."""
    if not isinstance(schema, dict) or not set(schema) <= _VALUE_KEYWORDS | ANNOTATIONS:
        return None
    checks: list[Check] = []
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not all(isinstance(kind, str) and kind in _TYPES for kind in kinds):
            return None
        checks.append(_type_check(frozenset(kinds)))
    if "enum" in schema:
        members = schema["enum"]
        if not isinstance(members, list) or not all(type(member) is str for member in members):
            return None
        strings = frozenset(members)
        checks.append(lambda value: type(value) is str and value in strings)
    if "items" in schema:
        item = value_check(schema["items"])
        if item is None:
            return None
        # jsonschema applies items to any list, a subclass too: those it decides
        checks.append(
            lambda value: not isinstance(value, list) or (type(value) is list and all(map(item, value)))
        )
    if "anyOf" in schema:
        options = schema["anyOf"]
        if not isinstance(options, list) or not options:
            return None
        known = [check for check in map(value_check, options) if check is not None]
        checks.append(lambda value: any(check(value) for check in known))
    if schema.get("additionalProperties", True) is not True:
        return None
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


@cache  # one check per set of types, shared by every parameter of that type
def _type_check(kinds: frozenset[str]) -> Check:
    allowed = frozenset(python for kind in kinds for python in _TYPES[kind])
    return lambda value: type(value) in allowed


def arguments_check(parameters: dict[str, Any]) -> Callable[[dict[str, Any]], bool] | None:
    """The check of a call's arguments (a dict naming only known parameters) against its tool's
    parameters schema; None when the schema's top level has a keyword it does not know."""
    if not set(parameters) <= _TOP_KEYWORDS | ANNOTATIONS or parameters.get("type", "object") != "object":
        return None
    properties = parameters.get("properties", {})
    required = parameters.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list):
        return None
    checks = {name: value_check(schema) for name, schema in properties.items()}
    needed = frozenset(required)

    def check(args: dict[str, Any]) -> bool:
        if not needed <= args.keys():
            return False
        for name, value in args.items():
            value_ok = checks[name]
            if value_ok is None or not value_ok(value):
                return False
        return True

    return check
