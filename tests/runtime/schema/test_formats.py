"""runtime._schema.formats: a ToolSpec lowered to openai, responses (strict), gemini and mcp."""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from runtime._schema import ToolSpec, derive_spec
from runtime._schema.formats import FORMATS, GEMINI_RECURSION_DEPTH, lower
from sandbox.common.errors import InvalidSource

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
SAMPLE_NAMES = (
    "get_last_user_utterance",
    "update_customer_loyalty_points",
    "get_random_fact",
    "get_customer",
    "get_current_weather",
)

# Seed 000: the function definition published in the agent-sessions guide.
SEED_GET_CUSTOMER = {
    "type": "function",
    "name": "get_customer",
    "description": "Look up a customer by ID.",
    "parameters": {
        "type": "object",
        "properties": {"customer_id": {"type": "string"}},
        "required": ["customer_id"],
        "additionalProperties": False,
    },
}
# Seed 004: the tool of the Chat Completions function-calling example.
SEED_GET_CURRENT_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_current_weather",
        "description": "Get the current weather in a given location",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    },
}

RICH_TOOL = '''
from __future__ import annotations
import datetime
from enum import IntEnum
from typing import Any, Literal, Optional
from pydantic import BaseModel, Field

class Priority(IntEnum):
    LOW = 1
    HIGH = 2

class Node(BaseModel):
    """A tree node."""
    value: int = Field(ge=0)
    children: list[Node] = []

def plan_trip(
    city: str = Field(min_length=1, description="Where to."),
    when: Optional[datetime.date] = None,
    mode: Literal["car", "train"] = "train",
    stops: tuple[str, int] = ("a", 1),
    tags: set[str] = None,
    extra: dict[str, int] = None,
    tree: Optional[Node] = None,
    priority: Priority = Priority.LOW,
    flag: Literal["on"] = "on",
    either: int | str = 0,
    anything: Any = None,
):
    """Plan a trip."""
'''


def sample_spec(name: str) -> ToolSpec:
    return derive_spec((SAMPLES / f"{name}.py").read_text())


def walk(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema object nested in ``schema`` (properties, items, anyOf, $defs...)."""
    if isinstance(schema, dict):
        yield schema
        for key, value in schema.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from walk(sub)
            elif key in ("items", "additionalProperties"):
                yield from walk(value)
            elif key in ("anyOf", "prefixItems"):
                for sub in value:
                    yield from walk(sub)


def test_get_customer_responses_strict_is_the_published_definition() -> None:
    lowered = lower(sample_spec("get_customer"), "responses", strict=True)
    assert lowered.schema == {**SEED_GET_CUSTOMER, "strict": True}
    assert lowered.notes == []


def test_get_current_weather_openai_is_the_published_definition() -> None:
    lowered = lower(sample_spec("get_current_weather"), "openai")
    assert lowered.schema == SEED_GET_CURRENT_WEATHER
    assert lowered.notes == []


def test_get_current_weather_in_every_format() -> None:
    spec = sample_spec("get_current_weather")
    parameters = SEED_GET_CURRENT_WEATHER["function"]["parameters"]
    description = "Get the current weather in a given location"
    assert lower(spec, "mcp").schema == {
        "name": "get_current_weather",
        "description": description,
        "inputSchema": parameters,
    }
    assert lower(spec, "gemini").schema == {
        "name": "get_current_weather",
        "description": description,
        "parameters": parameters,
    }
    assert lower(spec, "responses").schema == {
        "type": "function",
        "name": "get_current_weather",
        "description": description,
        "parameters": parameters,
        "strict": False,
    }
    strict = lower(spec, "responses", strict=True)
    assert strict.schema["parameters"] == {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
            "unit": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]},
        },
        "required": ["location", "unit"],
        "additionalProperties": False,
    }
    assert strict.notes == ["optional properties made required and nullable (strict mode) (unit)"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_every_sample_in_every_format(name: str, fmt: str) -> None:
    spec = sample_spec(name)
    schema = lower(spec, fmt).schema
    assert schema.get("name", schema.get("function", {}).get("name")) == name
    if fmt == "mcp":
        assert schema["inputSchema"] == spec.parameters
    if fmt == "gemini" and not spec.parameters["properties"]:
        assert "parameters" not in schema
    strict = lower(spec, fmt, strict=True)
    if fmt in ("openai", "responses"):
        parameters = strict.schema.get("parameters") or strict.schema["function"]["parameters"]
        assert parameters["additionalProperties"] is False
    else:
        assert any("no strict mode" in note for note in strict.notes)


def test_strict_mode_closes_objects_and_makes_optional_nullable() -> None:
    lowered = lower(derive_spec(RICH_TOOL), "responses", strict=True)
    parameters = lowered.schema["parameters"]
    for node in walk(parameters):
        assert not set(node) & {"default", "minLength", "uniqueItems", "propertyNames"}
        if node.get("type") == "object" or "properties" in node:
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])
        assert node.get("format") in (None, "date", "date-time", "uuid")
    properties = parameters["properties"]
    assert properties["city"] == {"type": "string", "description": "Where to."}
    assert properties["when"] == {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]}
    assert properties["mode"] == {"type": ["string", "null"], "enum": ["car", "train", None]}
    assert properties["flag"] == {"type": ["string", "null"], "enum": ["on", None]}
    assert properties["stops"]["prefixItems"] == [{"type": "string"}, {"type": "integer"}]  # as the SDK's
    assert properties["tree"] == {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
    assert properties["either"] == {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}
    node = parameters["$defs"]["Node"]
    assert node["required"] == ["value", "children"]
    assert node["properties"]["children"]["type"] == ["array", "null"]
    notes = "\n".join(lowered.notes)
    for expected in (
        "strict mode refuses 'default'",
        "strict mode refuses 'minLength': removed (city)",
        "strict mode refuses 'uniqueItems': removed (tags)",
        "free-form objects (dict)",
        "untyped (Any) value will be refused (anything)",
        "$defs.Node.children",
    ):
        assert expected in notes
    assert (
        lower(derive_spec(RICH_TOOL), "responses").schema["parameters"] == derive_spec(RICH_TOOL).parameters
    )


def test_openai_strict_sets_the_function_flag() -> None:
    function = lower(sample_spec("get_customer"), "openai", strict=True).schema["function"]
    assert function["strict"] is True
    assert function["parameters"] == SEED_GET_CUSTOMER["parameters"]


def test_gemini_keeps_to_the_openapi_subset() -> None:
    lowered = lower(derive_spec(RICH_TOOL), "gemini")
    parameters = lowered.schema["parameters"]
    refused = {
        "$ref",
        "$defs",
        "const",
        "oneOf",
        "allOf",
        "prefixItems",
        "uniqueItems",
    }
    for node in walk(parameters):
        assert not set(node) & refused, node
        assert not isinstance(node.get("type"), list)
        if "anyOf" in node:
            assert set(node) == {"anyOf"}
        if "enum" in node:  # strings; an integer enum in Gemini's form (format "enum")
            assert node["type"] == "string" or node.get("format") == "enum"
            assert all(isinstance(value, str) for value in node["enum"])
    properties = parameters["properties"]
    assert properties["when"] == {
        "type": "string",
        "default": None,
        "nullable": True,
        "description": "Format: date.",
    }
    assert properties["flag"] == {"type": "string", "enum": ["on"], "default": "on"}
    assert properties["priority"] == {"type": "integer", "enum": ["1", "2"], "format": "enum", "default": 1}
    assert properties["either"] == {
        "anyOf": [{"type": "integer", "default": 0}, {"type": "string", "default": 0}]
    }
    tree = properties["tree"]
    assert tree["nullable"] is True and tree["description"] == "A tree node."
    depth = 0
    while "properties" in tree:
        tree = tree["properties"]["children"]["items"]
        depth += 1
    assert depth == GEMINI_RECURSION_DEPTH and tree == {"type": "object"}
    notes = "\n".join(lowered.notes)
    assert "recursive type 'Node' cut after 3 levels" in notes
    assert "Gemini enums hold strings only" not in notes
    assert "fixed-length tuple written as an array of any of its item types" in notes
    assert "'anyOf' stands alone in Gemini" in notes


def test_gemini_keeps_dict_value_schemas_and_integer_enums_in_its_own_forms() -> None:
    source = textwrap.dedent('''
        import enum
        from typing import Literal

        class Level(enum.IntEnum):
            LOW = 1
            HIGH = 2

        def rank(scores: dict[str, list[int]], rows: list[dict[str, int]], pick: Literal[1, 2, 3],
                 level: Level, pair: tuple[int, str], ids: set[int]) -> str:
            """Ranks."""
            return ""
        ''')
    lowered = lower(derive_spec(source), "gemini")
    properties = lowered.schema["parameters"]["properties"]
    assert properties["scores"] == {
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": "integer"}},
    }
    assert properties["rows"]["items"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert properties["pick"] == {"type": "integer", "enum": ["1", "2", "3"], "format": "enum"}
    assert properties["level"]["enum"] == ["1", "2"] and properties["level"]["format"] == "enum"
    # no keyword for these in Gemini's subset: lowered, with a note, checked in full when called
    assert properties["pair"]["items"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert "uniqueItems" not in properties["ids"]
    notes = "\n".join(lowered.notes)
    assert "fixed-length tuple" in notes and "'uniqueItems': removed" in notes
    strict = lower(derive_spec(source), "responses", strict=True).schema["parameters"]["properties"]
    assert strict["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]


def test_name_rules_of_each_target() -> None:
    spec = dataclasses.replace(sample_spec("get_customer"), name="get.customer", lineno=4)
    for fmt in ("openai", "responses"):
        with pytest.raises(InvalidSource, match=f"tool name 'get.customer' is not valid for {fmt}") as caught:
            lower(spec, fmt)
        assert caught.value.line == 4
    assert lower(spec, "gemini").schema["name"] == "get.customer"
    assert lower(spec, "mcp").schema["name"] == "get.customer"
    with pytest.raises(InvalidSource, match="mcp"):
        lower(dataclasses.replace(spec, name="x" * 129), "mcp")
    with pytest.raises(InvalidSource, match="gemini"):
        lower(dataclasses.replace(spec, name="1tool"), "gemini")


def test_unknown_format_and_missing_description() -> None:
    spec = derive_spec(textwrap.dedent("def quiet():\n    pass\n"))
    with pytest.raises(ValueError, match="unknown format 'yaml'"):
        lower(spec, "yaml")
    assert lower(spec, "mcp").notes == ["no description: the model sees only the name (quiet)"]
