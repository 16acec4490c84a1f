"""tool_search: BM25 over tool names, descriptions and parameter docs."""

from __future__ import annotations

from pathlib import Path

from runtime.registry import Tool
from runtime.schema import derive_spec
from runtime.search import ToolIndex, tool_document

SAMPLES = Path(__file__).resolve().parents[1] / "samples"

REFUND = '''
def issue_refund(order_id: str, amount_cents: int) -> dict:
    """Refund part or all of an order's payment to the customer's card.

    Args:
        order_id: The order to refund.
        amount_cents: How much to give back, in cents.
    """
    return {}
'''

SHIPPING = '''
def track_parcel(tracking_number: str) -> dict:
    """Where a parcel is now.

    Args:
        tracking_number: The carrier's tracking code printed on the shipping label.
    """
    return {}
'''


def sample(name: str) -> Tool:
    return Tool(name=name, spec=derive_spec((SAMPLES / f"{name}.py").read_text()))


def inline(source: str) -> Tool:
    spec = derive_spec(source)
    return Tool(name=spec.name, spec=spec)


def tools() -> list[Tool]:
    return [
        sample("get_current_weather"),
        sample("get_customer"),
        sample("update_customer_loyalty_points"),
        inline(REFUND),
        inline(SHIPPING),
    ]


def names(found: list[Tool]) -> list[str]:
    return [tool.name for tool in found]


def test_description_words_find_the_tool() -> None:
    assert names(ToolIndex(tools()).search("weather in Boston", limit=2))[0] == "get_current_weather"


def test_parameter_docs_are_searched() -> None:
    # "label" and "carrier" appear only in the parameter's docstring.
    assert names(ToolIndex(tools()).search("carrier label", limit=1)) == ["track_parcel"]


def test_snake_case_names_are_split_into_words() -> None:
    assert "loyalty points" in tool_document(sample("update_customer_loyalty_points"))
    assert names(ToolIndex(tools()).search("loyalty", limit=1)) == ["update_customer_loyalty_points"]


def test_best_match_first_and_limit_respected() -> None:
    found = ToolIndex(tools()).search("refund the customer's card payment", limit=2)
    assert names(found)[0] == "issue_refund"
    assert len(found) <= 2


def test_no_shared_term_finds_nothing() -> None:
    assert ToolIndex(tools()).search("quantum chromodynamics") == []
    assert ToolIndex(tools()).search("") == []
    assert ToolIndex([]).search("weather") == []
