"""Callbacks and fakes: order, return-value meaning, state write-back and rollback, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime import Runtime
from runtime._check import check_source
from runtime.protocols.chat import handle_tool_calls
from sandbox.common.errors import InvalidSource, PolicyViolation
from tests.conftest import SAMPLES

SET_FLAG = '''
def set_flag(value: str) -> dict:
    """Sets a flag in the state."""
    context.state["flag"] = value
    return {"flag": value}
'''

SKIP_ALL = """
def before_tool_callback(tool, input, callback_context):
    callback_context.state["skipped"] = tool.name
    return {"skipped": True, "input": input}
"""

PASS_THROUGH = """
def before_tool_callback(tool, input, callback_context):
    callback_context.state["seen"] = callback_context.state.get("seen", []) + [tool.name]
    return None
"""


def after(tag: str) -> str:
    return f'''
def after_tool_callback(tool, input, callback_context, tool_response):
    callback_context.state["order"] = callback_context.state.get("order", []) + ["{tag}"]
    return {{**tool_response, "tags": tool_response.get("tags", []) + ["{tag}"]}}
'''


def test_before_tool_dict_skips_the_tool(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback(SKIP_ALL)
    result = rt.call("set_flag", {"value": "x"}, session_id="s")
    assert result.success and result.output == {"skipped": True, "input": {"value": "x"}}
    assert result.replaced_by == "before_tool_callback"
    assert result.to_dict()["replaced_by"] == "before_tool_callback"
    assert rt.store.require_session("s").state == {"skipped": "set_flag"}
    replayed = rt.call("set_flag", {"value": "x"}, session_id="s", call_id=result.call_id)
    assert replayed.replayed and replayed.replaced_by == "before_tool_callback", "the record keeps it"


def test_before_tool_none_runs_the_tool_and_keeps_its_state(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback(PASS_THROUGH)
    result = rt.call("set_flag", {"value": "x"}, session_id="s")
    assert result.output == {"flag": "x"}
    assert result.replaced_by is None and "replaced_by" not in result.to_dict()
    assert rt.store.require_session("s").state == {"seen": ["set_flag"], "flag": "x"}


AFTER_PASS_THROUGH = """
def after_tool_callback(tool, input, callback_context, tool_response):
    callback_context.state["seen"] = [tool.name]
    return None
"""


def test_after_tool_callbacks_run_in_order_until_one_replaces_the_result(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback(AFTER_PASS_THROUGH)
    rt.add_callback(after("first"))
    rt.add_callback(after("second"))
    result = rt.call("set_flag", {"value": "x"}, session_id="s")
    assert result.output == {"flag": "x", "tags": ["first"]} and result.replaced_by == "after_tool_callback"
    state = rt.store.require_session("s").state
    assert state["order"] == ["first"] and state["seen"] == ["set_flag"]


def test_a_failing_callback_rolls_everything_back(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback(PASS_THROUGH)
    rt.add_callback(
        "def after_tool_callback(tool, input, callback_context, tool_response):\n"
        '    callback_context.state["late"] = 1\n    raise ValueError("audit log unavailable")\n'
    )
    result = rt.call("set_flag", {"value": "x"}, session_id="s")
    assert not result.success
    assert result.error is not None and "after_tool_callback failed" in result.error.message
    assert result.error.line == 3
    assert rt.store.require_session("s").state == {}


def test_a_callback_must_return_a_dict_or_none(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback("def before_tool_callback(tool, input, callback_context):\n    return 'no'\n")
    result = rt.call("set_flag", {"value": "x"})
    assert result.error is not None and "must return a dict or None" in result.error.message


def test_tool_callbacks_wrap_nested_calls(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_tool(
        'def outer() -> dict:\n    """Calls set_flag."""\n    return tools.set_flag({"value": "n"})\n'
    )
    rt.add_callback(PASS_THROUGH)
    rt.call("outer", {}, session_id="s")
    assert rt.store.require_session("s").state["seen"] == ["outer", "set_flag"]


def test_model_callbacks_for_hosts(rt: Runtime) -> None:
    rt.add_callback((SAMPLES / "callbacks" / "model_guard.py").read_text())
    request = {"contents": [{"role": "user", "parts": [{"text": "What is my password?"}]}]}
    blocked = rt.run_callbacks("before_model", session_id="s", llm_request=request)
    assert blocked.output == {
        "content": {"role": "model", "parts": [{"text": "I can't help with passwords."}]}
    }
    fine = rt.run_callbacks("before_model", session_id="s", llm_request={"contents": []})
    assert fine.success and fine.output is None
    session = rt.store.require_session("s")
    assert session.state == {"blocked_requests": 1}
    assert session.events[-1].actions.state_delta == {"set": {"blocked_requests": 1}, "deleted": []}


def test_after_model_callbacks_stop_at_the_first_replacement(rt: Runtime) -> None:
    rt.add_callback("def after_model_callback(callback_context, llm_response):\n    return None\n")
    for word in ("one", "two"):
        rt.add_callback(
            "def after_model_callback(callback_context, llm_response):\n"
            f'    llm_response["content"]["parts"].append({{"text": "{word}"}})\n    return llm_response\n'
        )
    response = {"content": {"role": "model", "parts": []}}
    result = rt.run_callbacks("after_model", llm_response=response)
    assert [part["text"] for part in result.output["content"]["parts"]] == ["one"]
    assert rt.run_callbacks("after_agent").output is None


def test_callbacks_need_their_fixed_names_and_signatures(rt: Runtime) -> None:
    with pytest.raises(InvalidSource) as wrong:
        rt.add_callback("def before_tool_callback(tool, args):\n    return None\n")
    assert wrong.value.line == 1 and "(tool, input, callback_context)" in wrong.value.message
    with pytest.raises(InvalidSource, match="not a callback name"):
        rt.add_callback(
            "def after_tool_callbak(tool, input, callback_context, tool_response):\n    return None\n"
        )
    problems = check_source(
        "def helper():\n    return 1\n\n\ndef before_model_callback(llm_request):\n    return None\n"
    )
    assert [(p.line, p.code) for p in problems if p.level == "error"] == [(5, "callback")]


def test_fakes_are_off_unless_the_runtime_enables_them(rt: Runtime) -> None:
    with pytest.raises(PolicyViolation, match="enable_fakes"):
        rt.add_fakes("def fake_tool_call(tool, input, callback_context):\n    return 1\n")


def test_fakes_stand_in_and_say_so() -> None:
    with Runtime(enable_fakes=True) as rt:
        rt.add_tool(SET_FLAG)
        rt.add_tool('def other() -> str:\n    """Real."""\n    return "real"\n')
        rt.add_fakes(
            "def fake_set_flag(tool, input, callback_context):\n"
            '    return {"flag": "fake " + input["value"]}\n'
        )
        faked = rt.call("set_flag", {"value": "x"}, session_id="s")
        real = rt.call("other", {})
        assert faked.output == {"flag": "fake x"} and faked.faked and faked.to_dict()["faked"] is True
        assert real.output == "real" and not real.faked and "faked" not in real.to_dict()
        assert rt.store.require_session("s").state == {}


def test_callbacks_apply_in_the_chat_adapter(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback(SKIP_ALL)
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "set_flag", "arguments": '{"value": "y"}'}}
        ],
    }
    replies = handle_tool_calls(message, rt)
    assert json.loads(replies[0]["content"]) == {"skipped": True, "input": {"value": "y"}}


def test_the_sample_turn_from_the_cli(tmp_path: Path) -> None:
    command = [
        sys.executable,
        "-c",
        "from runtime._cli import main; main()",
        "turn",
        str(SAMPLES / "turns" / "refund_turn.json"),
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    turn = json.loads(done.stdout)
    cart, small, large, points = turn["calls"]
    assert cart["output"] == "Cart c-1: 2 x tea, 1 x mug" and cart["faked"] is True  # no CRM server runs
    assert small["output"]["status"] == "refunded"
    assert large["output"]["status"] == "needs_approval"  # the before_tool callback skipped the tool
    assert points["output"]["email"] == "[email redacted]"  # the after_tool callback rewrote the result
    assert turn["state"]["refusals"] == 1  # the callback's state change persisted
    assert turn["state"]["customer_profile"] == {
        "email": "ana@example.com",
        "loyalty_points": 110,
        "plan": "Gold",
    }
    assert len(turn["state"]["refunds"]) == 1


@pytest.mark.parametrize(
    ("text", "answer", "state"),
    [
        ("What is my password?", "I can't help with passwords.", {"blocked_requests": 1}),
        ("Refund 500 EUR on A-1002", '"status": "needs_approval"', {"refusals": 1}),
    ],
)
def test_the_host_loop_sample(text: str, answer: str, state: dict) -> None:
    host = SAMPLES / "hosts" / "callback_host.py"
    done = subprocess.run([sys.executable, str(host), text], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    final, state_line = done.stdout.strip().splitlines()
    assert answer in final
    assert json.loads(state_line.removeprefix("state: ")) == state


def test_callbacks_never_take_the_call_id_of_a_tool_call(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback((SAMPLES / "callbacks" / "model_guard.py").read_text())
    context = {"function_call_id": "call-1"}
    rt.run_callbacks("before_model", session_id="s", context=context, llm_request={"contents": []})
    result = rt.call("set_flag", {"value": "x"}, session_id="s", context=context)
    assert result.success and not result.replayed and result.output == {"flag": "x"}


ADD_IDS = """
def before_tool_callback(tool, input, callback_context):
    input["session_id"] = callback_context.session_id
    input["user_id"] = "u-1"
    input["value"] = input["value"].upper()
    return None
"""

SEES_TOOL_INPUT = """
def after_tool_callback(tool, tool_input, callback_context, tool_response):
    return {**tool_response, "input_keys": sorted(tool_input)}
"""


def test_keys_a_before_tool_callback_adds_that_the_tool_does_not_declare_are_dropped(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback(ADD_IDS)
    rt.add_callback(SEES_TOOL_INPUT)  # a tool_input parameter, as Google's exports name it
    result = rt.call("set_flag", {"value": "x"}, session_id="s")
    assert result.success, result.error
    # the tool got only what it declares (the edit of a declared key included); the callbacks
    # keep the whole input, as ADK's FunctionTool and its callbacks do
    assert result.output == {"flag": "X", "input_keys": ["session_id", "user_id", "value"]}
    assert result.dropped_arguments == ["session_id", "user_id"]
    assert result.to_dict()["dropped_arguments"] == ["session_id", "user_id"]
    replayed = rt.call("set_flag", {"value": "x"}, session_id="s", call_id=result.call_id)
    assert replayed.replayed and replayed.dropped_arguments == ["session_id", "user_id"]
    plain = rt.call("set_flag", {"value": "y", "extra": 1})  # the model's own: still refused
    assert not plain.success and plain.error is not None and plain.error.kind == "invalid_arguments"
