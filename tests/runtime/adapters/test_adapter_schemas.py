"""Each adapter's schema against its framework's own builder, on a corpus of 100+ functions.

The corpus: one parameter of each of 44 hints (plain types, containers, tuples, sets, enums,
unions, dataclasses, pydantic models, constraints), required, with a default and optional; and
the repository's sample tools. For every function, the schema each adapter shows (the Agents SDK's ``FunctionTool``, ADK's
declaration, LangChain's args schema) is compared with what the framework builds for the same
Python function (``agents.function_tool(f).params_json_schema``, ADK
``FunctionTool(f)._get_declaration()``, ``@tool(parse_docstring=True)``): no argument toolpen
accepts is one the framework's schema rejects, except the improvements the README names
(``improvement``), and the schemas are equal once titles, descriptions and ``$ref``s are set
aside, except the differences ``comparable`` names.
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from agents import function_tool as agents_function_tool
from agents.exceptions import UserError
from google.adk.tools import FunctionTool as AdkFunctionTool
from jsonschema import Draft202012Validator
from langchain_core.tools import tool as langchain_tool

from runtime import Runtime
from runtime.adapters.adk import SandboxedTool
from runtime.adapters.langchain import structured_tool
from runtime.adapters.openai_agents import function_tool
from sandbox.common.errors import InvalidArguments
from tests.conftest import SAMPLES

IMPORTS = """
import enum
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional, Union
from pydantic import BaseModel, Field
"""
CLASSES = {
    "Color": "class Color(str, enum.Enum):\n    RED = 'red'\n    BLUE = 'blue'\n",
    "Level": "class Level(enum.IntEnum):\n    LOW = 1\n    HIGH = 2\n",
    "Line": "@dataclass\nclass Line:\n    sku: str\n    qty: int = 1\n",
    "Address": "class Address(BaseModel):\n    street: str\n    zip_code: Optional[str] = None\n",
    "Order": "class Order(BaseModel):\n    lines: list[Line]\n    ship_to: Address\n    note: str = 'none'\n",
}
NEEDS = {"Order": ("Line", "Address", "Order")}
"""The classes a hint naming the key needs (else just the class it names)."""
NAMESPACE: dict[str, Any] = {}


def run_source(source: str, scope: dict[str, Any]) -> None:
    """Run ``source`` in ``scope`` without this module's ``from __future__`` (real annotations)."""
    exec(compile(source, "<corpus>", "exec", dont_inherit=True), scope)  # noqa: S102 (the corpus's own)


run_source(IMPORTS + "\n".join(CLASSES.values()), NAMESPACE)

HINTS = [
    "int",
    "float",
    "str",
    "bool",
    "Any",
    "list[int]",
    "list[str]",
    "list[float]",
    "list[Any]",
    "list[list[int]]",
    "dict[str, int]",
    "dict[str, str]",
    "dict[str, list[str]]",
    "list[dict[str, int]]",
    "dict[str, Any]",
    "tuple[int, str]",
    "tuple[int, ...]",
    "set[int]",
    "frozenset[str]",
    "Literal['a', 'b']",
    "Literal[1, 2, 3]",
    "Literal[True]",
    "Color",
    "Level",
    "Optional[int]",
    "Union[int, str]",
    "int | None",
    "str | list[str]",
    "Line",
    "Address",
    "Order",
    "list[Line]",
    "dict[str, Address]",
    "Optional[Address]",
    "Annotated[int, Field(ge=0, le=10)]",
    "Annotated[str, Field(min_length=2)]",
    "Annotated[list[int], Field(max_length=3)]",
    "Optional[list[str]]",
    "list[Optional[int]]",
    "dict[str, Line]",
    "tuple[str, int, bool]",
    "list[Color]",
    "list[Literal['x', 'y']]",
    "list[Address]",
]
DEFAULTS = {
    "int": "5",
    "float": "1.5",
    "str": "'x'",
    "bool": "False",
    "Any": "None",
    "Literal['a', 'b']": "'a'",
    "Literal[1, 2, 3]": "2",
    "Literal[True]": "True",
    "Color": "Color.RED",
    "Level": "Level.LOW",
    "Union[int, str]": "0",
    "str | list[str]": "'x'",
    "Annotated[int, Field(ge=0, le=10)]": "3",
    "Annotated[str, Field(min_length=2)]": "'ab'",
    "list[int]": "[]",
    "list[str]": "['a']",
    "list[float]": "[]",
    "list[Any]": "[]",
    "dict[str, int]": "{}",
    "dict[str, str]": "{}",
    "dict[str, Any]": "{}",
    "tuple[int, ...]": "()",
}
"""A default per hint where ``None`` is not one of its values (the others default to None)."""

PROBES: list[Any] = [
    0, 3, 2, -1, 11, 1.5, "x", "", "ab", "red", "2", True, False, None,
    [], [1], [1, 1], [1, 2, 3, 4], ["a"], [1, "a"], ["a", 1], [[1]], [None],
    {}, {"a": 1}, {"a": "b"}, {"a": [1]}, {"a": None},
    {"sku": "a"}, {"sku": "a", "qty": 2}, {"sku": "a", "qty": None}, {"sku": 1},
    [{"sku": "a"}], [{"sku": "a", "qty": None}],
    {"street": "s"}, {"street": "s", "zip_code": None}, {"a": {"street": "s"}},
    {"lines": [{"sku": "a"}], "ship_to": {"street": "s"}},
    {"lines": [{"sku": "a", "qty": None}], "ship_to": {"street": "s", "zip_code": None}, "note": None},
]  # fmt: skip
NO_PARAMETERS = {"type": "object", "properties": {}}
REFUSED_BY_LANGCHAIN = ["get_customer", "update_customer_loyalty_points"]
"""Sample tools whose docstrings ``@tool(parse_docstring=True)`` refuses ("invalid Google-Style
docstring": a parameter with no ``Args:`` entry; no blank line before ``Args:``), as CES's own
samples write them; toolpen reads both, and the LangChain adapter shows them."""


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    python: Any
    """The function itself, as the framework's own builder takes it."""


def corpus() -> list[Case]:
    """Per hint: the parameter required; with a default (its own, or None where None is one of
    its values); and ``hint | None = None`` where None is not."""
    cases = []
    for index, hint in enumerate(HINTS):
        admits_none = "None" in hint or "Optional" in hint or hint == "Any"
        variants = [("", "")]
        if hint in DEFAULTS:
            variants.append((f" = {DEFAULTS[hint]}", "d"))
        if admits_none and hint != "Any":
            variants.append((" = None", "n"))
        if not admits_none:
            variants.append((" | None = None", "o"))
        for default, tag in variants:
            name = f"f{index}{tag}"
            named = [cls for cls in CLASSES if cls in hint]
            needed = dict.fromkeys(need for cls in named for need in NEEDS.get(cls, (cls,)))
            prelude = IMPORTS + "\n".join(CLASSES[cls] for cls in needed)
            source = prelude + textwrap.dedent(f'''

                def {name}(x: {hint}{default}) -> str:
                    """Takes x.

                    Args:
                        x: the value.
                    """
                    return "ok"
                ''')
            scope = dict(NAMESPACE)  # the classes made once (pydantic's are slow to build)
            run_source(source.removeprefix(prelude), scope)
            cases.append(Case(name, source, scope[name]))
    return cases


def samples() -> list[Case]:
    """The repository's sample tools (real CES tools), one function each."""
    cases = []
    for path in sorted(SAMPLES.glob("*.py")):
        source = path.read_text()
        if f"def {path.stem}(" not in source:  # not a tool (the CRM stub server)
            continue
        scope: dict[str, Any] = {}
        run_source(source, scope)
        cases.append(Case(path.stem, source, scope[path.stem]))
    return cases


CASES = corpus() + samples()


@pytest.fixture(scope="module")
def runtime() -> Iterator[Runtime]:
    with Runtime(store="memory://") as rt:
        for case in CASES:
            rt.add_tool(case.source)
        yield rt


def accepts(schema: dict[str, Any], args: dict[str, Any]) -> bool:
    return Draft202012Validator(schema).is_valid(args)


def toolpen_accepts(runtime: Runtime, name: str, args: dict[str, Any]) -> bool:
    try:
        runtime.registry.get(name).arguments(args)
    except InvalidArguments:
        return False
    return True


def probes() -> Iterator[dict[str, Any]]:
    yield {}
    for value in PROBES:
        yield {"x": value}


@functools.cache
def frameworks(case: Case) -> dict[str, dict[str, Any]]:
    """What each framework's own builder gives for the function."""
    try:
        agents = agents_function_tool(case.python).params_json_schema
    except UserError:  # a schema strict mode cannot take: the SDK needs strict_mode=False
        agents = agents_function_tool(case.python, strict_mode=False).params_json_schema
    declaration = AdkFunctionTool(case.python)._get_declaration()
    assert declaration is not None
    # ADK leaves out the parameters of a function that takes none
    built = {"agents": agents, "adk": declaration.parameters_json_schema or NO_PARAMETERS}
    try:
        lc = langchain_tool(parse_docstring=True)(case.python).args_schema
    except ValueError:  # "Found invalid Google-Style docstring": LangChain refuses the function
        return built
    assert lc is not None and not isinstance(lc, dict)
    return {**built, "langchain": lc.model_json_schema()}


def adapters(runtime: Runtime, case: Case) -> dict[str, dict[str, Any]]:
    """What each adapter shows for the registered tool."""
    tool = runtime.registry.get(case.name)
    args_schema = structured_tool(runtime, tool).args_schema
    assert isinstance(args_schema, dict)
    return {
        "agents": function_tool(runtime, tool).params_json_schema,
        "adk": SandboxedTool(runtime, tool).parameters,
        "langchain": args_schema,
    }


def test_the_corpus_has_over_a_hundred_functions() -> None:
    assert len(CASES) >= 100
    refused = sorted(case.name for case in CASES if "langchain" not in frameworks(case))
    assert refused == REFUSED_BY_LANGCHAIN


def test_toolpen_accepts_nothing_the_frameworks_schema_rejects(runtime: Runtime) -> None:
    looser: list[str] = []
    for case in CASES:
        theirs = frameworks(case)
        loose = agents_function_tool(case.python, strict_mode=False).params_json_schema
        for args in probes():
            if not toolpen_accepts(runtime, case.name, args):
                continue
            for framework, schema in theirs.items():
                if not accepts(schema, args) and not improvement(
                    loose if framework == "agents" else schema, args
                ):
                    looser.append(f"{case.name} ({framework}): {args!r}")
    assert looser == []


def improvement(schema: dict[str, Any], args: dict[str, Any]) -> bool:
    """The README's improvements: an optional parameter or field left out, or null where it
    refuses null, takes its default at every depth (strict-mode models send null for "absent";
    the SDK's strict schema requires every property, so only its non-strict one says which are
    optional: ``schema`` is that one for the Agents SDK)."""
    return accepts(schema, _nulls_dropped(args))


def _nulls_dropped(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _nulls_dropped(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_nulls_dropped(item) for item in value]
    return value


def test_each_adapters_schema_equals_its_frameworks_own(runtime: Runtime) -> None:
    different = [
        f"{case.name} ({framework})"
        for case in CASES
        for framework, theirs in frameworks(case).items()
        if comparable(adapters(runtime, case)[framework], framework) != comparable(theirs, framework)
    ]
    assert different == []


def comparable(schema: dict[str, Any], framework: str) -> Any:
    """``schema`` with ``$ref``s inlined, titles and descriptions left out, and the justified
    differences set aside: a ``default`` (shown by the frameworks; toolpen's schema has it only
    where it is a value of the type, and ADK and LangChain show a None that their type refuses);
    ``const`` as a one-value ``enum``; and for the Agents SDK's strict schemas, the nulls
    (toolpen's strict optionals take null for their default, at every depth, where the SDK
    requires a value), and ``uniqueItems``, ``minLength`` and ``maxLength`` (not in OpenAI's
    strict subset: toolpen leaves them out of the strict schema, with a note, and still checks
    them when the tool is called)."""
    return _comparable(schema, schema.get("$defs", {}), strict=framework == "agents")


STRICT_LEFT_OUT = {"uniqueItems", "minLength", "maxLength"}


def _comparable(node: Any, defs: dict[str, Any], *, strict: bool) -> Any:
    if isinstance(node, list):
        return [_comparable(item, defs, strict=strict) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[str(node["$ref"]).rsplit("/", 1)[-1]]
        return _comparable({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs, strict=strict)
    left_out = {"title", "description", "$defs", "default"} | (STRICT_LEFT_OUT if strict else set())
    result = {
        key: _comparable(value, defs, strict=strict) for key, value in node.items() if key not in left_out
    }
    if "const" in result:
        result["enum"] = [result.pop("const")]
    if strict:
        if isinstance(result.get("type"), list):
            kinds = [kind for kind in result["type"] if kind != "null"]
            result["type"] = kinds[0] if len(kinds) == 1 else kinds
        if "enum" in result:
            result["enum"] = [value for value in result["enum"] if value is not None]
        branches = [branch for branch in result.get("anyOf", ()) if branch != {"type": "null"}]
        if "anyOf" in result and len(branches) == 1:
            rest = {key: value for key, value in result.items() if key != "anyOf"}
            return {**branches[0], **rest}
        if "anyOf" in result:
            result["anyOf"] = branches
    return result
