"""The CES classes handed to tool code: dict-style reads reach only declared public fields.

An independent review reached the real builtins by subclassing ``Part`` with its own field lookup
(``p["__dict__"]``, ``p["__pydantic_core_schema__"]``), rewriting the class's core schema into a
``dataclass`` schema whose ``fields`` list the serializer reads with a plain ``getattr``.
"""

from __future__ import annotations

import pytest

from runtime import Runtime

OVERRIDE_LOOKUP = """
def attack() -> str:
    class P(Part):
        @classmethod
        def _field_for(cls, key):
            return key
    p = P(text="x")
    return repr(p[NAME])
"""


@pytest.fixture(scope="module")
def rt():
    with Runtime() as runtime:
        yield runtime


@pytest.mark.parametrize(
    "name", ["__dict__", "__pydantic_core_schema__", "__pydantic_validator__", "__init__", "__class__"]
)
def test_a_subclass_cannot_widen_what_item_access_reads(rt, name):
    rt.add_tool(OVERRIDE_LOOKUP.replace("NAME", repr(name)), name="attack", replace=True)
    result = rt.call("attack", {})
    assert not result.success, result.output
    assert result.error.kind in ("tool_error", "policy"), result.error


def test_item_access_still_reads_declared_fields_and_aliases(rt):
    source = """
def fields() -> list:
    blob = Blob(mime_type="text/plain", data="eA==")
    part = Part(text="hi")
    return [part["text"], blob["mimeType"], blob.get("mime_type"), "text" in part, "__dict__" in part]
"""
    rt.add_tool(source, name="fields", replace=True)
    result = rt.call("fields", {})
    assert result.output == ["hi", "text/plain", "text/plain", True, False], result.error


def test_a_dataclass_schema_naming_private_attributes_is_refused():
    from pydantic_core import core_schema

    from sandbox.common.errors import PolicyViolation
    from sandbox.language.pydantic_wall import check_core_schema

    schema = core_schema.dataclass_schema(type, core_schema.dataclass_args_schema("X", []), ["__code__"])
    with pytest.raises(PolicyViolation):
        check_core_schema(schema)
