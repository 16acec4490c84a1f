"""Tool signatures as ADK, MCP, the Agents SDK and LangChain write them (issue 31, point 2), under both walls:
injected parameters left out of the schema and filled, ``Field`` defaults, validated model
arguments, nested classes, and results serialized as pydantic serializes them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from runtime import Runtime
from runtime._schema import derive_spec


@pytest.fixture(scope="module", params=["all", "process"])
def rt(request: pytest.FixtureRequest) -> Iterator[Runtime]:
    with Runtime(store="memory://", walls=request.param) as runtime:
        yield runtime


ADK_TOOL = '''
def remember(note: str, tool_context: ToolContext) -> dict:
    """Remember a note."""
    tool_context.state["notes"] = tool_context.state.get("notes", []) + [note]
    return {"count": len(tool_context.state["notes"])}
'''


def test_a_tool_context_is_left_out_of_the_schema_and_handed_the_context(rt: Runtime) -> None:
    spec = derive_spec(ADK_TOOL)
    assert spec.parameters["properties"].keys() == {"note"}
    assert spec.injected == {"tool_context": "tool_context"}
    rt.add_tool(ADK_TOOL, replace=True)
    result = rt.call("remember", {"note": "milk"}, context={"state": {"notes": ["eggs"]}})
    assert result.error is None
    assert result.output == {"count": 2}
    assert result.state == {"notes": ["eggs", "milk"]}


def test_an_unannotated_tool_context_is_injected_as_adk_does(rt: Runtime) -> None:
    source = 'def seen(tool_context):\n    """Seen."""\n    return sorted(tool_context.state)\n'
    assert derive_spec(source).parameters["properties"] == {}
    rt.add_tool(source, replace=True)
    assert rt.call("seen", {}, context={"state": {"b": 1, "a": 2}}).output == ["a", "b"]


@pytest.mark.parametrize(
    ("annotation", "kind"),
    [
        ("google.adk.tools.ToolContext", "tool_context"),
        ("mcp.server.fastmcp.Context", "mcp_context"),
        ("mcp.server.mcpserver.Context[ServerSession, None]", "mcp_context"),
        ("agents.RunContextWrapper[Info]", "run_context"),
        ("langchain_core.runnables.RunnableConfig", "runnable_config"),
    ],
)
def test_each_frameworks_injected_kind_is_recognised(annotation: str, kind: str) -> None:
    module, _, rest = annotation.partition("[")
    package, _, name = module.rpartition(".")
    subscript = f"[{rest}" if rest else ""
    source = f'from {package} import {name}\n\ndef f(x: int, ctx: {name}{subscript}) -> int:\n    """F."""\n    return x\n'
    spec = derive_spec(source)
    assert spec.injected == {"ctx": kind}
    assert spec.parameters["properties"].keys() == {"x"}


FIELD_DEFAULTS = '''
from typing import Annotated
from pydantic import Field

def greet(name: str, times: int = Field(default=2, description="How often"),
          mark: Annotated[str, Field(default="!")] = "!") -> str:
    """Greet."""
    return " ".join([name + mark] * times)
'''


def test_field_defaults_apply_when_the_argument_is_omitted(rt: Runtime) -> None:
    rt.add_tool(FIELD_DEFAULTS, replace=True)
    assert rt.call("greet", {"name": "Ada"}).output == "Ada! Ada!"
    assert rt.call("greet", {"name": "Ada", "times": 1, "mark": "?"}).output == "Ada?"


ANNOTATED_DEFAULT = '''
from typing import Annotated
from pydantic import Field

def count(n: Annotated[int, Field(default=3, ge=0)]) -> int:
    """Count."""
    return n
'''


def test_an_annotated_field_default_makes_the_parameter_optional(rt: Runtime) -> None:
    spec = derive_spec(ANNOTATED_DEFAULT)
    assert "required" not in spec.parameters
    assert spec.parameters["properties"]["n"] == {"type": "integer", "minimum": 0, "default": 3}
    rt.add_tool(ANNOTATED_DEFAULT, replace=True)
    assert rt.call("count", {}).output == 3


NESTED = '''
from dataclasses import dataclass
from pydantic import BaseModel

class Tank(BaseModel):
    class Shrimp(BaseModel):
        name: str

    shrimp: list[Shrimp]

@dataclass
class Options:
    loud: bool = False

def names(tank: Tank, options: Options) -> list[str]:
    """Names."""
    found = [s.name.upper() if options.loud else s.name for s in tank.shrimp]
    return found + [type(tank).__name__, type(tank.shrimp[0]).__name__, type(options).__name__]
'''


def test_nested_classes_are_resolved_and_arguments_arrive_as_instances(rt: Runtime) -> None:
    import pydantic

    spec = derive_spec(NESTED)

    class Shrimp(pydantic.BaseModel):
        name: str

    class Tank(pydantic.BaseModel):
        shrimp: list[Shrimp]

    expected = Tank.model_json_schema()  # pydantic's, less its titles (toolpen writes none)
    assert spec.parameters["$defs"]["Shrimp"]["properties"] == {"name": {"type": "string"}}
    assert expected["$defs"]["Shrimp"]["properties"] == {"name": {"title": "Name", "type": "string"}}
    assert spec.parameters["$defs"]["Tank"]["properties"]["shrimp"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/Shrimp"},
    }
    rt.add_tool(NESTED, replace=True)
    result = rt.call("names", {"tank": {"shrimp": [{"name": "bob"}]}, "options": {"loud": True}})
    assert result.error is None
    assert result.output == ["BOB", "Tank", "Shrimp", "Options"]


RESULTS = '''
import datetime
import enum
from dataclasses import dataclass
from pydantic import BaseModel, Field

class Level(enum.Enum):
    HIGH = "high"

@dataclass
class Alert:
    level: Level
    until: datetime.datetime

class Content(BaseModel):
    mime_type: str = Field(alias="mimeType")
    is_error: bool = Field(default=False, alias="isError")

def results() -> dict:
    """Results."""
    return {
        "alerts": [Alert(Level.HIGH, datetime.datetime(2024, 7, 15, 18, 0))],
        "content": Content(mimeType="text/plain"),
        "level": Level.HIGH,
    }
'''


def test_results_are_serialized_as_pydantic_serializes_them(rt: Runtime) -> None:
    rt.add_tool(RESULTS, replace=True)
    result = rt.call("results", {})
    assert result.error is None
    assert result.output == {
        "alerts": [{"level": "high", "until": "2024-07-15T18:00:00"}],
        "content": {"mimeType": "text/plain", "isError": False},
        "level": "high",
    }


ANNOTATED_CLASS = '''
class Profile:
    name: str
    age: int
    _token: str

    def __init__(self, name: str, age: int) -> None:
        self.name, self.age, self._token = name, age, "secret"


class Loop:
    me: object

    @property
    def me(self) -> object:
        return self


def profile() -> Profile:
    """An ordinary annotated class, as MCP's structured output takes it."""
    return Profile("Alice", 30)


def loop() -> Loop:
    """One whose annotated attribute is itself."""
    return Loop()
'''


def test_an_annotated_class_of_the_tool_returns_its_annotated_public_attributes(rt: Runtime) -> None:
    rt.add_tool(ANNOTATED_CLASS, "profile", replace=True)
    assert rt.call("profile", {}).output == {"name": "Alice", "age": 30}
    rt.add_tool(ANNOTATED_CLASS, "loop", replace=True)
    error = rt.call("loop", {}).error
    assert error is not None and error.kind == "tool_error" and "Circular reference" in error.message
