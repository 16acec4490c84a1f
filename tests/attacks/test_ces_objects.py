"""The CES globals and classes under the language wall: usable, and no way past the guards."""

from __future__ import annotations

from typing import Any

import pytest

from attacks import run_tool
from sandbox.bridges.ces_context import ToolContext, ces_globals
from sandbox.bridges.ces_types import Part
from sandbox.common.errors import PolicyViolation


def no_rpc(target: str, method: str, params: dict[str, Any]) -> Any:
    raise AssertionError("no host call expected")


def globals_for_one_call() -> dict[str, object]:
    context = ToolContext({"state": {"a": "1"}, "user_content": {"role": "user", "parts": [{"text": "x"}]}})
    return ces_globals(context, no_rpc)


ATTACKS = [
    # a dict-style write names an attribute: it may not reach object.__setattr__("__class__")
    ("setitem-class", 'p = Part(text="x")\np["__class__"] = dict\nreturn p', KeyError),
    ("setitem-private", 'p = Part(text="x")\np["__pydantic_extra__"] = {}\nreturn p', KeyError),
    ("class-method-replaced", "Part.from_text = print\nreturn 1", PolicyViolation),
    ("bound-method-self", "return context.get_variable.__self__", PolicyViolation),
    ("tools-rpc", "return tools._rpc", PolicyViolation),
    ("tools-getattr-private", 'return getattr(async_tools, "_tools")', PolicyViolation),
    ("model-class-walk", "return Part.__mro__", PolicyViolation),
    ("model-private-attribute", 'return Part(text="x").__pydantic_extra__', PolicyViolation),
    ("construct-private-keyword", "return Part.model_construct(_fields_set=set())", PolicyViolation),
    ("state-slot", "return context.__slots__", PolicyViolation),
    ("context-write", "context.state = {}\nreturn 1", AttributeError),
    ("context-write-session-field", 'context.app_id = "x"\nreturn 1', AttributeError),
    # a context the tool builds of its own is writable, but only in its public fields
    ("own-context-private", "return CallbackContext(state={})._host", PolicyViolation),
    ("own-context-own-flag", "c = CallbackContext(state={})\nc._own = False\nreturn c", PolicyViolation),
    ("own-context-other-field", "c = CallbackContext(state={})\nc.rpc = print\nreturn c", AttributeError),
]


@pytest.mark.parametrize(("source", "refusal"), [a[1:] for a in ATTACKS], ids=[a[0] for a in ATTACKS])
def test_attack_is_refused(source: str, refusal: type[BaseException]) -> None:
    body = "\n".join("    " + line for line in source.splitlines())
    with pytest.raises(refusal):
        run_tool(f"def tool():\n{body}\n", injected=globals_for_one_call())


def test_a_shared_class_keeps_its_methods_for_the_next_call() -> None:
    with pytest.raises(PolicyViolation):
        run_tool("def tool():\n    setattr(Part, 'from_text', None)\n", injected=globals_for_one_call())
    assert Part.from_text("ok").text == "ok"


def test_the_classes_work_under_the_language_wall() -> None:
    source = """
def tool():
    request = LlmRequest(contents=[Content(role="user", parts=[Part.from_text("hi")])])
    request.hide_tool("refund")
    response = LlmResponse.from_parts([Part.from_text("hello")])
    response.content.parts[0]["text"] = "hello!"
    blob = Blob(mime_type="text/plain")
    blob.raw_data = b"abc"
    set_variable("b", "2")
    return [request.config.excluded_tools, response.content.parts[0].text, blob.data,
            context.get_variable("a"), get_variable("b"), dict(context.variables)]
"""
    result, _ = run_tool(source, injected=globals_for_one_call())
    assert result == [["refund"], "hello!", b"YWJj", "1", "2", {"a": "1", "b": "2"}]


def test_a_tool_may_build_a_context_of_its_own_from_plain_values() -> None:
    source = """
def tool():
    own = ToolContext(state={"k": "v"}, turn_index=2)
    own.user_content = Content(role="user", parts=[Part.from_text("hi")])
    own.remove_variable("k")
    return [own.turn_index, own.user_content.parts[0].text, dict(own.state), context.get_variable("a")]
"""
    result, _ = run_tool(source, injected=globals_for_one_call())
    assert result == [2, "hi", {}, "1"]
