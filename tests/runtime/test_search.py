"""tool_search: BM25 over tool names, descriptions and parameter docs, and its ranking quality."""

from __future__ import annotations

from pathlib import Path

from runtime._registry import Tool
from runtime._schema import derive_spec
from runtime._search import ToolIndex, tool_document

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

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


# A fixed catalogue of tools as a real agent might defer them, and queries a model might send,
# each with the tool that must come first (ranking quality, not only "some overlap").
CATALOGUE = {
    "get_current_weather": (
        "Current weather conditions for a city.",
        "location: City and country, e.g. Paris, France.",
    ),
    "get_weather_forecast": (
        "Weather forecast for the next days.",
        "location: City name. days: How many days ahead.",
    ),
    "convert_currency": (
        "Convert an amount of money between currencies at today's exchange rate.",
        "amount: The sum. target: ISO currency code.",
    ),
    "send_email": (
        "Send an email message to a recipient.",
        "to: Recipient address. subject: Subject line. body: Message text.",
    ),
    "send_sms": (
        "Send a text message to a phone number.",
        "phone_number: Number in E.164 form. text: The message.",
    ),
    "create_calendar_event": (
        "Create an event in the user's calendar.",
        "title: Event title. start: Start time. attendees: Guests to invite.",
    ),
    "list_calendar_events": (
        "List the events of the user's calendar in a time range.",
        "start: Range start. end: Range end.",
    ),
    "issue_refund": (
        "Refund part or all of an order's payment to the customer's card.",
        "order_id: The order. amount_cents: How much to give back.",
    ),
    "cancel_order": (
        "Cancel an order that has not shipped yet.",
        "order_id: The order to cancel. reason: Why.",
    ),
    "track_parcel": (
        "Where a parcel is now.",
        "tracking_number: The carrier's tracking code on the shipping label.",
    ),
    "search_products": (
        "Search the product catalog by keywords.",
        "query: Words to look for. max_price: Highest price.",
    ),
    "get_customer": ("Look up a customer profile by ID.", "customer_id: The customer's ID."),
    "update_customer_address": (
        "Change a customer's postal address.",
        "customer_id: The customer. address: The new street address.",
    ),
    "reset_password": (
        "Send the user a link to reset their account password.",
        "email: The account's email address.",
    ),
    "translate_text": (
        "Translate text into another language.",
        "text: What to translate. target_language: Language code, e.g. de.",
    ),
    "book_table": (
        "Book a table at the restaurant.",
        "party_size: Number of guests. date: Day of the booking. time: Time of the booking.",
    ),
}

RANKING = [
    ("will it rain tomorrow in Paris forecast", "get_weather_forecast"),
    ("what is the weather right now", "get_current_weather"),
    ("how many euros is 100 dollars exchange rate", "convert_currency"),
    ("text message to a phone", "send_sms"),
    ("what meetings do I have this week in my calendar", "list_calendar_events"),
    ("give the customer their money back", "issue_refund"),
    ("cancel my order", "cancel_order"),
    ("where is my parcel tracking", "track_parcel"),
    ("find products cheaper than 20", "search_products"),
    ("customer moved to a new address", "update_customer_address"),
    ("I forgot my password", "reset_password"),
    ("translate this into German language", "translate_text"),
    ("reserve a table for four guests", "book_table"),
    ("refunds for orders", "issue_refund"),  # plural forms meet the singular (bm25s without a stemmer: none)
]

LEXICAL_LIMITS = [
    # Words alone cannot decide these (reset_password says "email" three times; "schedule" and
    # "meeting" are in no tool): the expected tool is second, not first.
    ("email the invoice to the client", "send_email"),
    ("schedule a meeting in my calendar", "create_calendar_event"),
]


def catalogue() -> list[Tool]:
    tools = []
    for name, (description, params) in CATALOGUE.items():
        args = [item.split(":")[0].strip() for item in params.split(". ") if ":" in item]
        docs = "\n".join(f"        {item.strip().rstrip('.')}." for item in params.split(". ") if ":" in item)
        signature = ", ".join(f"{arg}: str" for arg in args)
        tools.append(
            inline(
                f'def {name}({signature}) -> dict:\n    """{description}\n\n    Args:\n{docs}\n    """\n    return {{}}\n'
            )
        )
    return tools


def test_ranking_on_a_fixed_catalogue() -> None:
    index = ToolIndex(catalogue())
    misses = [
        (query, expected, names(index.search(query, limit=3)))
        for query, expected in RANKING
        if names(index.search(query, limit=1)) != [expected]
    ]
    assert misses == []


def test_ranking_where_words_alone_cannot_decide() -> None:
    index = ToolIndex(catalogue())
    for query, expected in LEXICAL_LIMITS:
        assert expected in names(index.search(query, limit=2)), query


def test_the_action_word_decides_between_tools_on_one_subject() -> None:
    index = ToolIndex(catalogue())
    assert names(index.search("create an event", limit=2))[0] == "create_calendar_event"
    assert names(index.search("list events", limit=2))[0] == "list_calendar_events"
