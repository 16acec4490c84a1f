"""``AttributeError.obj`` holds the object a lookup failed on: a library's failed lookup must not hand
tool code what the library held; the tool's own failed lookups keep it, as in CPython."""

from __future__ import annotations

import pytest

from runtime import Runtime
from sandbox.common.errors import PolicyViolation
from tests.attacks import attack, run_tool

OWN_LOOKUP = """
def tool():
    value = [1, 2]
    try:
        value.missing
    except AttributeError as error:
        return error.obj is value, error.name
"""

OWN_CLASS = """
import html


class Box:
    pass


def tool():
    try:
        html.escape(Box())
    except AttributeError as error:
        return type(error.obj).__name__, error.name
"""

LIBRARY_LOOKUP = """
import html


def tool():
    try:
        html.escape(5)
    except AttributeError as error:
        return error.name, error.obj
"""

C_FUNCTION = """
import operator


def tool():
    try:
        operator.attrgetter("missing")({"a": 1})
    except AttributeError as error:
        return error.obj
"""


def test_the_tools_own_failed_lookup_keeps_its_object() -> None:
    assert run_tool(OWN_LOOKUP)[0] == (True, "missing")


def test_an_object_of_the_tools_classes_is_kept_wherever_the_lookup_failed() -> None:
    assert run_tool(OWN_CLASS)[0] == ("Box", "replace")


def test_a_c_function_the_tool_called_counts_as_the_tools_lookup() -> None:
    assert run_tool(C_FUNCTION)[0] == {"a": 1}


def test_a_librarys_failed_lookup_does_not_hand_over_what_the_library_held() -> None:
    with pytest.raises(PolicyViolation, match="AttributeError.obj"):
        run_tool(LIBRARY_LOOKUP)


def test_in_a_worker_a_library_lookup_is_refused_and_the_tools_own_is_kept(rt: Runtime) -> None:
    refused = attack(rt, LIBRARY_LOOKUP)
    assert refused.error is not None and refused.error.kind == "policy"
    assert "AttributeError.obj" in refused.error.message
    assert attack(rt, OWN_LOOKUP).output == [True, "missing"]
