"""Time to derive a tool schema: toolpen (static, ast) vs the import + inspect + pydantic route.

Run: ``python bench/bench_schema.py``. Prints median and p90 in microseconds.
"""

from __future__ import annotations

import inspect
import statistics
import time
import types
from collections.abc import Callable
from typing import Any

import docstring_parser
from pydantic import Field, create_model

from runtime._schema import derive_spec

TEN_PARAMETERS = '''
from typing import Literal, Optional


def book_table(
    restaurant: str,
    party_size: int,
    date: str,
    time: str,
    name: str,
    phone: Optional[str] = None,
    seating: Literal["indoor", "outdoor", "bar"] = "indoor",
    high_chairs: int = 0,
    notes: list[str] = [],
    accessible: bool = False,
) -> dict:
    """Book a table at a restaurant.

    The booking is held for fifteen minutes past the requested time.

    Args:
        restaurant: The restaurant's name or ID.
        party_size: How many people, including children.
        date: The day, as YYYY-MM-DD.
        time: The time, as HH:MM in 24-hour format.
        name: The name the booking is under.
        phone: A phone number for confirmation.
        seating: Where to sit.
        high_chairs: How many high chairs to set.
        notes: Requests for the restaurant.
        accessible: Whether step-free access is needed.

    Returns:
        The confirmation, with its booking reference.
    """
    return {}
'''
ROUNDS = 2000


def toolpen_route() -> dict[str, Any]:
    return derive_spec(TEN_PARAMETERS).parameters


def import_tool() -> Callable[..., Any]:
    """Import the tool as a module (which runs its top-level code: what toolpen avoids)."""
    module = types.ModuleType("tool")
    exec(compile(TEN_PARAMETERS, "<tool>", "exec", dont_inherit=True), module.__dict__)
    return module.book_table


IMPORTED = import_tool()


def pydantic_route(function: Callable[..., Any] = IMPORTED) -> dict[str, Any]:
    """What libraries do on an imported function: inspect.signature + the docstring + create_model."""
    docs = {
        param.arg_name: param.description for param in docstring_parser.parse(function.__doc__ or "").params
    }
    fields: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (parameter.annotation, Field(default, description=docs.get(name)))
    return create_model("book_table", **fields).model_json_schema()


def pydantic_route_with_import() -> dict[str, Any]:
    return pydantic_route(import_tool())


def timings(route: Callable[[], dict[str, Any]]) -> list[float]:
    for _ in range(50):
        route()
    samples = []
    for _ in range(ROUNDS):
        start = time.perf_counter_ns()
        route()
        samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def main() -> None:
    assert set(toolpen_route()["properties"]) == set(pydantic_route()["properties"])
    print(f"ten-parameter function with a Google docstring, {ROUNDS} rounds")
    print(f"{'route':<46} {'median µs':>10} {'p90 µs':>10}")
    for label, route in (
        ("toolpen derive_spec (ast, static)", toolpen_route),
        ("inspect + pydantic create_model (imported)", pydantic_route),
        ("the same, including the import", pydantic_route_with_import),
    ):
        samples = timings(route)
        p90 = statistics.quantiles(samples, n=10)[-1]
        print(f"{label:<46} {statistics.median(samples):>10.1f} {p90:>10.1f}")


if __name__ == "__main__":
    main()
