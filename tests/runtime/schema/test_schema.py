"""runtime._schema: tool source -> ToolSpec, statically."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from runtime._schema import ToolSpec, derive_spec
from runtime._schema.reader import SNAKE_CASE_RULE
from sandbox.common.errors import InvalidSource

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def spec_of(source: str, name: str | None = None) -> ToolSpec:
    return derive_spec(textwrap.dedent(source), name)


def prop(annotation: str, *, default: str | None = None, header: str = "") -> dict[str, Any]:
    """The schema of one parameter ``x`` annotated ``annotation``."""
    suffix = f" = {default}" if default is not None else ""
    source = f"{header}\ndef tool(x: {annotation}{suffix}):\n    '''Do it.\n\n    Args:\n        x: The x.\n    '''\n"
    spec = derive_spec(source)
    assert spec.errors == [], spec.errors
    schema = dict(spec.parameters["properties"]["x"])
    assert schema.pop("description") == "The x."
    return schema


TYPING = "from typing import Any, Dict, FrozenSet, List, Literal, Optional, Set, Tuple, Union"


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        ("str", {"type": "string"}),
        ("int", {"type": "integer"}),
        ("float", {"type": "number"}),
        ("bool", {"type": "boolean"}),
        ("None", {"type": "null"}),
        ("Any", {}),
        ("Optional[int]", {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        ("Union[int, str]", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        ("int | str | None", {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}),
        ("Union[int, Optional[str]]", {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]}),
        ("list[int]", {"type": "array", "items": {"type": "integer"}}),
        ("List[str]", {"type": "array", "items": {"type": "string"}}),
        ("list", {"type": "array", "items": {}}),
        ("set[str]", {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        ("FrozenSet[int]", {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (
            "tuple[int, str]",
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        ("Tuple[float, ...]", {"type": "array", "items": {"type": "number"}}),
        ("tuple[()]", {"type": "array", "maxItems": 0}),
        ("dict[str, int]", {"type": "object", "additionalProperties": {"type": "integer"}}),
        ("Dict[str, Any]", {"type": "object", "additionalProperties": True}),
        ("dict", {"type": "object", "additionalProperties": True}),
        ("Literal['a', 'b']", {"type": "string", "enum": ["a", "b"]}),
        ("Literal[1, 2]", {"type": "integer", "enum": [1, 2]}),
        ("Literal['only']", {"type": "string", "const": "only"}),
        ("Literal['a', 1]", {"enum": ["a", 1]}),
        ("Literal['a', 'b', None]", {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]}),
        ("Literal[Literal['a'], 'b']", {"type": "string", "enum": ["a", "b"]}),
    ],
)
def test_annotation_to_json_schema(annotation: str, expected: dict[str, Any]) -> None:
    assert prop(annotation, header=TYPING) == expected


@pytest.mark.parametrize(
    ("header", "annotation", "expected"),
    [
        ("import datetime", "datetime.datetime", {"type": "string", "format": "date-time"}),
        ("from datetime import date", "date", {"type": "string", "format": "date"}),
        ("import datetime as dt", "dt.time", {"type": "string", "format": "time"}),
        ("from datetime import timedelta", "timedelta", {"type": "string", "format": "duration"}),
        ("from uuid import UUID", "UUID", {"type": "string", "format": "uuid"}),
        ("import decimal", "decimal.Decimal", {"type": "string", "format": "decimal"}),
        (
            "import typing",
            "typing.Optional[typing.List[int]]",
            {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
        ),
        ("import typing as t", "t.Dict[str, t.Any]", {"type": "object", "additionalProperties": True}),
        ("from typing import List as L", "L[bool]", {"type": "array", "items": {"type": "boolean"}}),
        (
            "from collections.abc import Sequence",
            "Sequence[int]",
            {"type": "array", "items": {"type": "integer"}},
        ),
        (
            "from typing_extensions import Literal",
            "Literal['x', 'y']",
            {"type": "string", "enum": ["x", "y"]},
        ),
        ("", "'list[int]'", {"type": "array", "items": {"type": "integer"}}),
        (
            "from typing import Optional",
            "Optional['int']",
            {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        ),
        (
            "from typing import Literal\nUnit = Literal['c', 'f']",
            "Unit",
            {"type": "string", "enum": ["c", "f"]},
        ),
    ],
)
def test_imports_aliases_and_string_annotations(
    header: str, annotation: str, expected: dict[str, Any]
) -> None:
    assert prop(annotation, header=header) == expected


def test_future_annotations_and_unannotated_parameters() -> None:
    spec = spec_of(
        """
        from __future__ import annotations

        def tool(a: list[int] | None, b=3, *, c: str = "x"):
            '''Do it.

            Args:
                a: A.
                b: B.
                c: C.
            '''
        """
    )
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "a": {
                "anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}],
                "description": "A.",
            },
            "b": {"description": "B.", "default": 3},
            "c": {"type": "string", "description": "C.", "default": "x"},
        },
        "required": ["a"],
    }
    assert spec.diagnostics == []


def test_defaults_none_and_required() -> None:
    spec = spec_of(
        """
        from typing import Optional
        def tool(a: int, b: Optional[str] = None, c: str = None, d: list[int] = [1, 2]):
            '''Do it. Args: none documented.'''
        """
    )
    properties = spec.parameters["properties"]
    assert spec.parameters["required"] == ["a"]
    assert properties["b"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
    assert properties["c"] == {"type": "string"}  # a None default the type refuses is left out
    assert properties["d"] == {"type": "array", "items": {"type": "integer"}, "default": [1, 2]}


def test_annotated_and_field_descriptions_and_constraints() -> None:
    spec = spec_of(
        """
        from typing import Annotated, Optional
        from pydantic import Field

        def tool(
            name: Annotated[str, "The name."],
            age: Annotated[int, Field(ge=0, le=150, description="Age in years.")] = 30,
            code: str = Field(description="A code.", pattern="^[A-Z]+$", min_length=2),
            limit: Optional[int] = Field(None, gt=0, description="At most this many."),
            tags: list[str] = Field(default_factory=list, max_length=3, description="Tags."),
        ):
            '''Do it.'''
        """
    )
    properties = spec.parameters["properties"]
    assert properties["name"] == {"type": "string", "description": "The name."}
    assert properties["age"] == {
        "type": "integer",
        "minimum": 0,
        "maximum": 150,
        "description": "Age in years.",
        "default": 30,
    }
    assert properties["code"] == {
        "type": "string",
        "pattern": "^[A-Z]+$",
        "minLength": 2,
        "description": "A code.",
    }
    assert properties["limit"] == {
        "anyOf": [{"type": "integer", "exclusiveMinimum": 0}, {"type": "null"}],
        "description": "At most this many.",
        "default": None,
    }
    assert properties["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "maxItems": 3,
        "description": "Tags.",
    }
    assert spec.parameters["required"] == ["name", "code"]
    assert spec.diagnostics == []


CLASSES = """
from __future__ import annotations
from dataclasses import dataclass, field
from enum import Enum, IntEnum, auto
from typing import NotRequired, Optional, Required, TypedDict
from pydantic import BaseModel, ConfigDict, Field

class Color(str, Enum):
    '''A colour.'''
    RED = "red"
    GREEN = "green"

class Level(IntEnum):
    LOW = auto()
    HIGH = auto()

class Node(BaseModel):
    '''A tree node.'''
    model_config = ConfigDict(extra="forbid")
    value: int = Field(ge=0, description="The value.")
    children: list[Node] = []
    _cache: dict = {}

class Named(Node):
    label: str = Field("n", alias="Label")

class Point(TypedDict, total=False):
    x: Required[float]
    y: float

class Pair(TypedDict):
    left: int
    right: NotRequired[int]

@dataclass
class Box:
    '''A box.

    Attributes:
        label: The label.
    '''
    label: str
    tags: list[str] = field(default_factory=list)
    color: Color = Color.GREEN

def tool(node: Named, level: Level, point: Point, pair: Pair, box: Optional[Box] = None, color: Color = Color.RED):
    '''Use classes.

    Args:
        node: A node.
        level: A level.
        point: A point.
        pair: A pair.
        box: A box.
        color: A colour.
    '''
"""


def test_classes_read_statically_into_defs() -> None:
    spec = spec_of(CLASSES)
    assert spec.errors == []
    properties, defs = spec.parameters["properties"], spec.parameters["$defs"]
    assert properties["node"] == {"$ref": "#/$defs/Named", "description": "A node."}
    assert properties["box"] == {
        "anyOf": [{"$ref": "#/$defs/Box"}, {"type": "null"}],
        "description": "A box.",
        "default": None,
    }
    assert properties["color"] == {"$ref": "#/$defs/Color", "description": "A colour.", "default": "red"}
    assert spec.parameters["required"] == ["node", "level", "point", "pair"]
    assert defs["Color"] == {"type": "string", "enum": ["red", "green"], "description": "A colour."}
    assert defs["Level"] == {"type": "integer", "enum": [1, 2]}
    assert defs["Named"] == {
        "type": "object",
        "properties": {
            "value": {"type": "integer", "minimum": 0, "description": "The value."},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "default": []},
            "Label": {"type": "string", "default": "n"},
        },
        "required": ["value"],
        "additionalProperties": False,
    }
    assert defs["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert defs["Node"]["description"] == "A tree node."
    assert defs["Point"] == {
        "type": "object",
        "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
        "required": ["x"],
    }
    assert defs["Pair"]["required"] == ["left"]
    assert defs["Box"] == {
        "type": "object",
        "properties": {
            "label": {"type": "string", "description": "The label."},
            "tags": {"type": "array", "items": {"type": "string"}},
            "color": {"$ref": "#/$defs/Color", "default": "green"},
        },
        "required": ["label"],
        "description": "A box.",
    }


def test_returns_schema() -> None:
    spec = spec_of(
        """
        from typing import Optional
        from pydantic import BaseModel
        class Out(BaseModel):
            ok: bool
        def tool() -> Optional[Out]:
            '''Do it.'''
        """
    )
    assert spec.returns == {
        "anyOf": [{"$ref": "#/$defs/Out"}, {"type": "null"}],
        "$defs": {"Out": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}},
    }
    assert "$defs" not in spec.parameters


DOCSTRINGS = {
    "google": """Add points.

    More words.

    Args:
        points (int): How many points.
        reason: Why.

    Returns:
        The new total.

    Raises:
        ValueError: If negative.
    """,
    "numpy": """Add points.

    More words.

    Parameters
    ----------
    points : int
        How many points.
    reason : str
        Why.

    Returns
    -------
    int
        The new total.
    """,
    "rest": """Add points.

    More words.

    :param points: How many points.
    :type points: int
    :param reason: Why.
    :returns: The new total.
    :raises ValueError: If negative.
    """,
    "epydoc": """Add points.

    More words.

    @param points: How many points.
    @type points: int
    @param reason: Why.
    @return: The new total.
    """,
}


@pytest.mark.parametrize("style", sorted(DOCSTRINGS))
def test_docstring_styles(style: str) -> None:
    source = f'def add_points(points: int, reason: str = ""):\n    """{DOCSTRINGS[style]}"""\n'
    spec = derive_spec(source)
    assert spec.description == "Add points.\n\nMore words.\n\nReturns: The new total."
    assert spec.parameters["properties"]["points"]["description"] == "How many points."
    assert spec.parameters["properties"]["reason"]["description"] == "Why."
    assert spec.diagnostics == []


def test_entry_function_by_name_or_first() -> None:
    source = """
    import json
    class Helper:
        pass
    def _helper():
        return 1
    def second_tool(y: int):
        '''Second.'''
    """
    assert spec_of(source).name == "_helper"
    chosen = spec_of(source, name="second_tool")
    assert (chosen.name, chosen.description, chosen.lineno) == ("second_tool", "Second.", 7)
    with pytest.raises(InvalidSource, match="no top-level function named 'missing'.*_helper, second_tool"):
        spec_of(source, name="missing")


def test_unusable_sources_raise_located_invalid_source() -> None:
    with pytest.raises(InvalidSource, match="no top-level function"):
        derive_spec("x = 1\nclass A:\n    def method(self): pass\n")
    with pytest.raises(InvalidSource, match="syntax error") as caught:
        derive_spec("def tool():\n    return (\n\ndef other(): pass\n")
    assert caught.value.line is not None and caught.value.line >= 2
    assert caught.value.to_dict()["kind"] == "invalid_source"


def test_a_tool_name_over_64_characters_is_an_error() -> None:
    spec = derive_spec(f"\n\ndef {'a' * 65}():\n    '''Doc.'''\n")
    assert [(d.level, d.line, d.col, d.code) for d in spec.errors] == [("error", 3, 1, "name")]
    assert "65 characters" in spec.errors[0].message


@pytest.mark.parametrize("name", ["GetCustomer", "_private", "intent_mapping_getTagDictionary"])
def test_a_name_not_in_snake_case_is_a_warning_quoting_the_rule(name: str) -> None:
    spec = derive_spec(f"\n\ndef {name}():\n    '''Doc.'''\n")
    assert spec.errors == []
    [warning] = [d for d in spec.diagnostics if d.code == "name"]
    assert (warning.level, warning.line, warning.col) == ("warning", 3, 1)
    assert f"tool name '{name}' is not snake_case" in warning.message
    assert SNAKE_CASE_RULE in warning.message
    assert "precisam ser iguais em snake case" in SNAKE_CASE_RULE


def test_untranslatable_parameters_are_located_errors_not_wrong_schemas() -> None:
    signature = 'def tool(d: int, /, a: socket.socket, b: dict[int, str], *args, c: "list[", **kwargs):'
    spec = derive_spec(f"import socket\n{signature}\n    'Doc.'\n")

    def col(fragment: str) -> int:
        return signature.index(fragment) + 1

    assert [(d.line, d.col, d.message) for d in spec.errors] == [
        (2, col("d: int"), "positional-only parameter 'd' cannot be passed by name"),
        (2, col("socket.socket"), "cannot translate the annotation 'socket.socket' to JSON Schema"),
        (2, col("int, str"), "JSON object keys are strings; 'int' keys cannot be expressed"),
        (2, col('"list['), "string annotation 'list[' is not a valid expression"),
    ]
    assert spec.parameters["properties"] == {
        "d": {"type": "integer"},
        "args": {"type": "array"},  # *args and **kwargs as the OpenAI Agents SDK describes them
        "kwargs": {"type": "object"},
    }


def test_error_inside_a_class_is_located_in_the_class() -> None:
    spec = spec_of(
        """
        from pydantic import BaseModel
        class Item(BaseModel):
            handle: object
            when: "socket"

        class Plain:
            x: int

        def tool(item: Item, plain: Plain):
            '''Doc.'''
        """
    )
    assert [(d.line, d.col) for d in spec.errors] == [(5, 12), (10, 29)]
    assert "class 'Plain' is not an Enum, BaseModel, TypedDict or dataclass" in spec.errors[1].message


def test_docstring_mismatch_warnings() -> None:
    spec = spec_of(
        '''
        def tool(a: int, b: str, c: int = 1):
            """Doc.

            Args:
                a (str): The a.
                b (str, optional): The b.
                ghost: Not a parameter.
            """
        '''
    )
    messages = [(d.level, d.line, d.message) for d in spec.diagnostics]
    assert ("warning", 2, "the docstring says 'a' is str but it is annotated int") in messages
    assert ("warning", 2, "the docstring says 'b' is optional but it has no default") in messages
    assert ("warning", 2, "parameter 'c' is not documented") in messages
    assert ("warning", 8, "the docstring documents 'ghost', which is not a parameter of 'tool'") in messages
    assert spec.errors == []


def test_missing_docstring_and_non_literal_default_warn() -> None:
    spec = spec_of(
        """
        import time
        def tool(when: float = time.time()):
            return when
        """
    )
    assert [(d.line, d.message) for d in spec.diagnostics] == [
        (3, "'tool' has no docstring: the model sees no description"),
        (3, "parameter 'when' is not documented"),
        (3, "default is not a literal; it is left out of the schema"),
    ]
    assert spec.parameters == {"type": "object", "properties": {"when": {"type": "number"}}}


def test_source_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    source = (
        f"open({str(marker)!r}, 'w').write('x')\nraise SystemExit(3)\ndef tool(x: int):\n    '''Doc.'''\n"
    )
    assert derive_spec(source).name == "tool"
    assert not marker.exists()


SAMPLE_SPECS = {
    "get_last_user_utterance": (
        "Retrieves the most recent message sent by the user from the conversation history.\n\n"
        "Returns: The text of the last user message, or None if no user messages are found.",
        {"type": "object", "properties": {}},
    ),
    "update_customer_loyalty_points": (
        "Adds loyalty points to the customer's profile and returns the updated profile.\n\n"
        "Returns: A dictionary containing the customer's updated profile information.",
        {
            "type": "object",
            "properties": {
                "points_to_add": {
                    "type": "integer",
                    "description": "The number of loyalty points to add to the existing total.",
                }
            },
            "required": ["points_to_add"],
        },
    ),
    "get_random_fact": (
        "Fetches a random fact from a public API.\n\n"
        "Returns: A string containing the fact on success, or None if an error occurs.",
        {"type": "object", "properties": {}},
    ),
    "get_customer": (
        "Look up a customer by ID.",
        {"type": "object", "properties": {"customer_id": {"type": "string"}}, "required": ["customer_id"]},
    ),
    "get_current_weather": (
        "Get the current weather in a given location",
        {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["location"],
        },
    ),
}


@pytest.mark.parametrize("name", sorted(SAMPLE_SPECS))
def test_published_samples(name: str) -> None:
    spec = derive_spec((SAMPLES / f"{name}.py").read_text())
    description, parameters = SAMPLE_SPECS[name]
    assert (spec.name, spec.description, spec.parameters) == (name, description, parameters)
    assert spec.errors == []


def test_every_published_sample_is_present() -> None:
    assert {path.stem for path in SAMPLES.glob("*.py")} >= set(SAMPLE_SPECS)


def test_star_parameters_and_async_tools_as_the_agents_sdk_describes_them() -> None:
    source = (
        "async def tag(item: str, *labels: str, loud: bool = False, **extra: int) -> str:\n"
        '    """Tag an item.\n\n    Args:\n        item: The item.\n        labels: Labels to add.\n'
        '        loud: Shout.\n        extra: Counters.\n    """\n    return item\n'
    )
    spec = derive_spec(source)
    assert spec.errors == []
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "item": {"type": "string", "description": "The item."},
            "labels": {"type": "array", "items": {"type": "string"}, "description": "Labels to add."},
            "loud": {"type": "boolean", "description": "Shout.", "default": False},
            "extra": {
                "type": "object",
                "additionalProperties": {"type": "integer"},
                "description": "Counters.",
            },
        },
        "required": ["item"],
    }
