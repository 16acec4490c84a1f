"""``toolpen check`` knows the CES names and warns where CES differs from toolpen."""

from __future__ import annotations

import pytest

from runtime._check import check_source
from tests.conftest import SAMPLES


def ces_warnings(source: str) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in check_source(source) if d.code == "ces"]


CALLBACK_WITH_CLASSES = """
def before_model_callback(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
    for part in callback_context.get_last_user_input():
        if part.text and "agent" in part.text:
            return LlmResponse.from_parts([Part.from_agent_transfer("human")])
    return None


def after_tool_callback(tool: Tool, input: dict, callback_context: CallbackContext, tool_response: dict):
    blob = Blob(mime_type="text/plain")
    if isinstance(tool_response, dict) and tool_response.get("error"):
        raise StatusError("tool failed")
    future = async_tools.audit({"tool": tool.name})
    set_variable("audited", get_variable("audited", "") + tool.name)
    remove_variable("x")
    return {"result": future().json(), "blob": blob.mime_type, "history": len(context.events)}
"""


def test_the_ces_classes_and_globals_are_defined() -> None:
    assert check_source(CALLBACK_WITH_CLASSES) == []


@pytest.mark.parametrize(
    ("statement", "kind"),
    [
        ('context.state["n"] = 1', "a number"),
        ('context.variables["ok"] = True', "a boolean"),
        ('callback_context.state["items"] = ["a"]', "a list"),
        ('context.state["profile"] = {"a": "b"}', "a dict"),
        ('context.state["n"] -= 1', "a number"),
        ('set_variable("n", 2)', "a number"),
        ('context.set_variable("n", None)', "None"),
        ('context.state["items"] = items + ["b"]', "a list"),
    ],
)
def test_state_values_that_are_not_strings(statement: str, kind: str) -> None:
    source = f'def tool(items: list) -> None:\n    """Tool."""\n    {statement}\n'
    assert ces_warnings(source) == [
        (3, f"CES documents string values for variables; this stores {kind} "
            "(toolpen keeps any JSON value; use json.dumps for CES)")
    ]  # fmt: skip


@pytest.mark.parametrize(
    "statement",
    ['context.state["n"] = "1"', 'context.state["n"] = str(n)', 'context.state["s"] += "x"',
     'set_variable("n", json.dumps(n))', 'other.state["n"] = 1'],
)  # fmt: skip
def test_string_or_unknown_values_are_not_flagged(statement: str) -> None:
    source = f'import json\n\n\ndef tool(n: int) -> None:\n    """Tool."""\n    {statement}\n'
    assert ces_warnings(source) == []


def test_kwargs_and_none_defaults_in_the_entry_function() -> None:
    source = (
        "from typing import Optional\n\n\n"
        "def find(name: str, city: Optional[str] = None, *, zip_code: Optional[str] = None, **extra) -> str:\n"
        '    """Find.\n\n    Args:\n        name: Name.\n        city: City.\n        zip_code: Zip.\n    """\n'
        "    return helper(name)\n\n\n"
        "def helper(a=None, **rest):\n    return a\n"
    )
    found = ces_warnings(source)
    assert [line for line, _ in found] == [4, 4, 4]
    messages = " | ".join(message for _, message in found)
    assert "takes **extra" in messages and "(city)" in messages and "(zip_code)" in messages
    assert "helper" not in messages and "(a)" not in messages


@pytest.mark.parametrize("name", ["end_session", "transfer_to_agent", "customize_response"])
def test_reserved_tool_names(name: str) -> None:
    source = f'def {name}(reason: str) -> str:\n    """Reserved.\n\n    Args:\n        reason: Why.\n    """\n    return reason\n'
    assert ces_warnings(source) == [(1, f"{name!r} is a reserved tool name in CES; rename the function")]


def test_a_function_shaped_like_a_callback_without_its_name() -> None:
    source = "def guard(callback_context, llm_request):\n    return None\n"
    assert ces_warnings(source) == [
        (1, "guard takes the parameters of a before_model callback; "
            "CES runs a callback only when its function is named before_model_callback")
    ]  # fmt: skip


def test_model_callbacks_returning_dicts() -> None:
    found = ces_warnings((SAMPLES / "callbacks" / "model_guard.py").read_text())
    assert (
        11,
        "CES expects before_model_callback to return an LlmResponse "
        "(LlmResponse.from_parts([Part.from_text(...)])) or None, not a dict",
    ) in found


def test_wrong_callback_signatures_stay_errors() -> None:
    errors = [
        d for d in check_source("def after_agent_callback(callback_context, response):\n    return None\n")
    ]
    assert [(d.level, d.code) for d in errors] == [("error", "callback")]


@pytest.mark.parametrize("name", ["get_last_user_utterance", "update_customer_loyalty_points"])
def test_published_ces_samples_check_clean(name: str) -> None:
    assert check_source((SAMPLES / f"{name}.py").read_text()) == []
