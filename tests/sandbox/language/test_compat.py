"""Ordinary tool code runs unchanged under the language wall, the published samples included."""

from __future__ import annotations

from pathlib import Path

import pytest
from attacks import run_tool

from sandbox.bridges.proxies import Context

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def sample(name: str) -> str:
    return (SAMPLES / f"{name}.py").read_text()


def test_update_customer_loyalty_points_sample_unchanged() -> None:
    context = Context({"state": {"customer_profile": {"email": "a@b.c", "loyalty_points": 10}}})
    result, output = run_tool(
        sample("update_customer_loyalty_points"),
        "update_customer_loyalty_points",
        args={"points_to_add": 5},
        injected={"context": context},
    )
    assert result == {"email": "a@b.c", "loyalty_points": 15, "plan": "Standard"}
    assert output.text == "Updated loyalty points to: 15\n"


def test_get_last_user_utterance_sample_unchanged() -> None:
    context = Context({"user_content": {"role": "user", "parts": [{"text": "hello"}]}})
    result, _ = run_tool(
        sample("get_last_user_utterance"), "get_last_user_utterance", injected={"context": context}
    )
    assert result == "hello"


def test_get_random_fact_sample_compiles_and_fails_softly() -> None:
    # the published sample refers to undefined names and catches the error with a bare except
    result, _ = run_tool(sample("get_random_fact"), "get_random_fact", injected={"ces_requests": object()})
    assert result is None


@pytest.mark.parametrize("name", ["get_current_weather", "get_customer"])
def test_other_samples_run(name: str) -> None:
    args = (
        {"location": "Boston, MA", "unit": "celsius"}
        if name == "get_current_weather"
        else {"customer_id": "123"}
    )
    result, _ = run_tool(sample(name), name, args=args, injected={"context": Context({})})
    assert result


PYDANTIC_AND_DATACLASSES = """
from dataclasses import dataclass, field
from enum import Enum
from typing import Optional
from pydantic import BaseModel, Field, field_validator, ValidationError

class Plan(str, Enum):
    BASIC = "basic"
    GOLD = "gold"

class Customer(BaseModel, frozen=False):
    name: str = Field(min_length=1)
    points: int = Field(default=0, ge=0)
    plan: Plan = Plan.BASIC
    tags: list[str] = Field(default_factory=list)
    email: Optional[str] = None

    @field_validator("name")
    @classmethod
    def strip_name(cls, value: str) -> str:
        return value.strip()

@dataclass
class Order:
    sku: str
    quantity: int = 1
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.quantity += 0

def tool():
    customer = Customer(name="  Ana ", points=3, plan="gold")
    customer.points += 5
    customer.tags += ["vip"]
    try:
        Customer(name="", points=-1)
    except ValidationError as error:
        errors = len(error.errors())
    order = Order("x", 2)
    order.notes.append("fragile")
    return customer.model_dump(mode="json"), errors, order.quantity, order.notes
"""


def test_pydantic_models_dataclasses_and_enums() -> None:
    result, _ = run_tool(PYDANTIC_AND_DATACLASSES)
    assert result == (
        {"name": "Ana", "points": 8, "plan": "gold", "tags": ["vip"], "email": None},
        2,
        2,
        ["fragile"],
    )


def test_postponed_annotations_resolve_in_the_tool_namespace() -> None:
    source = (
        "from __future__ import annotations\nimport typing\nfrom pydantic import BaseModel\n"
        "class Item(BaseModel):\n    name: str\n    tags: typing.List[str] = []\n    parent: typing.Optional[Item] = None\n"
        "def tool() -> dict:\n    return Item(name='a', parent={'name': 'b'}).model_dump()\n"
    )
    result, _ = run_tool(source)
    assert result == {"name": "a", "tags": [], "parent": {"name": "b", "tags": [], "parent": None}}


EVERYDAY = """
import json, re, math, datetime, itertools, functools, collections, operator, statistics, string
from urllib.parse import quote
from collections.abc import Iterable

class Box:
    def __init__(self, items):
        self.items = list(items)
        self.opened = 0
    def __enter__(self):
        self.opened += 1
        return self
    def __exit__(self, kind, error, trace):
        return False
    def __len__(self):
        return len(self.items)
    def __iter__(self):
        return iter(self.items)
    def __repr__(self):
        return f"Box({self.items!r})"

class Special(Exception):
    def __init__(self, message):
        super().__init__(message)

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)

def evens(limit):
    for number in range(limit):
        if number % 2 == 0:
            yield number

def tool():
    counts = {"k": 1}
    counts["k"] += 1
    values = [3, 1, 2]
    values[0] *= 2
    first, *rest = sorted(values)
    pairs = list(zip("ab", (1, 2)))
    with Box(rest) as box:
        boxed = [item * 2 for item in box]
    try:
        raise Special("bad")
    except Special as error:
        caught = str(error)
    else:
        caught = None
    finally:
        cleanup = True
    total = 0
    for index, value in enumerate(reversed(values)):
        total += index * value
    squares = {n: n * n for n in range(4) if n}
    flags = (any(v > 5 for v in values), all(isinstance(v, int) for v in values))
    key = operator.itemgetter(1)
    by_name = operator.attrgetter("real")
    text = "{0} {name} {0:>3}".format(7, name="x") + "{x}".format_map({"x": "!"})
    when = datetime.date(2024, 1, 31) + datetime.timedelta(days=1)
    return {
        "counts": counts, "values": values, "first": first, "rest": rest, "pairs": pairs,
        "boxed": boxed, "box": repr(box), "len": len(box), "opened": box.opened, "caught": caught,
        "cleanup": cleanup, "total": total, "squares": squares, "flags": flags,
        "sum": sum(values), "min": min(values), "max": max(values, key=abs),
        "tuple": tuple(evens(5)), "bytes": bytes([65, 66]).decode(), "lambda": sorted(pairs, key=lambda p: -p[1]),
        "hasattr": hasattr(box, "items"), "getattr": getattr(box, "missing", "default"), "dir": "items" in dir(box),
        "json": json.loads(json.dumps({"a": [1, 2]})), "re": re.findall(r"\\d+", "a1b22"),
        "math": math.floor(math.pi * 100), "when": when.isoformat(), "fib": fib(15),
        "chain": list(itertools.chain([1], [2])), "reduce": functools.reduce(operator.add, [1, 2, 3]),
        "counter": collections.Counter("aab").most_common(1), "mean": statistics.mean([1, 2, 3]),
        "itemgetter": key((0, 9)), "attrgetter": by_name(5), "format": text, "quote": quote("a b"),
        "fstring": f"{math.pi:.2f}|{'x':>3}|{when:%Y}", "walrus": (n := 10) + n,
        "letters": string.ascii_lowercase[:3], "iterable": isinstance(values, Iterable),
    }
"""


def test_everyday_code() -> None:
    result, _ = run_tool(EVERYDAY)
    assert result == {
        "counts": {"k": 2}, "values": [6, 1, 2], "first": 1, "rest": [2, 6], "pairs": [("a", 1), ("b", 2)],
        "boxed": [4, 12], "box": "Box([2, 6])", "len": 2, "opened": 1, "caught": "bad",
        "cleanup": True, "total": 13, "squares": {1: 1, 2: 4, 3: 9}, "flags": (True, True),
        "sum": 9, "min": 1, "max": 6, "tuple": (0, 2, 4), "bytes": "AB", "lambda": [("b", 2), ("a", 1)],
        "hasattr": True, "getattr": "default", "dir": True,
        "json": {"a": [1, 2]}, "re": ["1", "22"], "math": 314, "when": "2024-02-01", "fib": 610,
        "chain": [1, 2], "reduce": 6, "counter": [("a", 2)], "mean": 2,
        "itemgetter": 9, "attrgetter": 5, "format": "7 x   7!", "quote": "a%20b",
        "fstring": "3.14|  x|2024", "walrus": 20, "letters": "abc", "iterable": True,
    }  # fmt: skip


def test_print_is_captured_and_truncated() -> None:
    _, output = run_tool(
        "def tool():\n    for i in range(100):\n        print('line', i, sep='-')\n", output_limit=20
    )
    assert output.truncated
    assert output.text == "line-0\nline-1\nline-2\n... [output truncated at 20 bytes]"


def test_state_and_tools_are_usable() -> None:
    class Tools:
        def other_tool(self, args: dict) -> dict:
            return {"echo": args}

    context = Context({"state": {"n": 1}})
    source = (
        "def tool():\n    context.state['n'] += 1\n    context.state['k'] = context.state.get('n') * 2\n"
        "    return tools.other_tool({'a': 1}), context.state['k']\n"
    )
    result, _ = run_tool(source, injected={"context": context, "tools": Tools()})
    assert result == ({"echo": {"a": 1}}, 4)
