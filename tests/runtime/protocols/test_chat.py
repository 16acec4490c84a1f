"""Chat Completions: the real `openai` client against a local server replaying scripted turns."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from runtime import Runtime
from runtime.protocols.chat import chat_tools, handle_tool_calls, run_chat
from runtime.protocols.profiles import ModelProfile, load_profiles, profile_for, shape_request
from samples.hosts.servers.openai_compatible import ScriptedChatServer, assistant, tool_call
from sandbox.common.errors import BudgetExceeded
from tests.conftest import NOTE_LATER

SAMPLES = Path(__file__).resolve().parents[3] / "samples"
QWEN = "qwen/qwen3-next-80b-a3b-instruct-maas"
QUESTION = {
    "role": "user",
    "content": "Which city has a higher temperature, Boston or new Delhi and by how much in F?",
}
SEED_CALLS = assistant(
    "I'll check the current temperatures for Boston and New Delhi in Fahrenheit and compare them. "
    "I'll call the weather function for both cities.",
    tool_call("get_current_weather", {"location": "Boston, MA", "unit": "fahrenheit"}),
    tool_call("get_current_weather", {"location": "New Delhi, India", "unit": "fahrenheit"}),
)

FAILING = '''
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b
'''


DEFERRED = '''
def find_weather(city: str) -> str:
    """Finds the weather of a city.

    Args:
        city: The city.
    """
    return city
'''


def sample(name: str) -> str:
    return (SAMPLES / f"{name}.py").read_text()


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(sample("get_current_weather"))
        runtime.add_tool(sample("update_customer_loyalty_points"), defer_loading=True)
        runtime.add_tool(FAILING)
        yield runtime


@pytest.fixture(scope="module")
def search_rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(DEFERRED, defer_loading=True)
        yield runtime


def compare_temperatures(request: dict[str, Any]) -> dict[str, Any]:
    """The final turn, answered from the tool messages the client sent back."""
    replies = [m["content"] for m in request["messages"] if m["role"] == "tool"]
    temperatures = [int(text.split(" is ")[1].split()[0]) for text in replies]
    return assistant(f"Boston is {temperatures[0] - temperatures[1]} F warmer than New Delhi.")


def client_for(server: ScriptedChatServer) -> OpenAI:
    return OpenAI(base_url=server.base_url, api_key="test", max_retries=0)


def test_seed_turn_with_two_parallel_calls_round_trips(rt: Runtime) -> None:
    with ScriptedChatServer([SEED_CALLS, compare_temperatures]) as server:
        run = run_chat(client_for(server), QWEN, [QUESTION], rt)
    assert run.final["content"] == "Boston is 25 F warmer than New Delhi."
    assert run.turns == 2
    first, second = server.requests
    assert first["tool_choice"] == "auto"  # Qwen: always explicit
    assert [tool["function"]["name"] for tool in first["tools"]] == [
        "get_current_weather",
        "divide",
        "tool_search",
    ]
    sent = second["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool"]
    assert [len(m["tool_calls"]) for m in sent if m["role"] == "assistant"] == [2]
    # Both calls share the id "get_current_weather": replies keep the calls' order.
    assert [(m["tool_call_id"], m["content"]) for m in sent[2:]] == [
        ("get_current_weather", "The temperature in Boston, MA is 75 degrees Fahrenheit."),
        ("get_current_weather", "The temperature in New Delhi, India is 50 degrees Fahrenheit."),
    ]


def test_bad_calls_become_error_messages_in_order(rt: Runtime) -> None:
    message = assistant(
        None,
        tool_call("get_current_weather", '{"location": "Boston', "a"),
        tool_call("no_such_tool", {}, "b"),
        tool_call("divide", {"a": 1, "b": 0}, "c"),
        tool_call("get_current_weather", "[1, 2]", "d"),
        tool_call("divide", {"a": 6, "b": 3}, "e"),
    )
    replies = handle_tool_calls(message, rt)
    assert [reply["tool_call_id"] for reply in replies] == ["a", "b", "c", "d", "e"]
    assert replies[0]["content"].startswith("invalid_arguments: the arguments are not valid JSON")
    assert "no_such_tool" in replies[1]["content"]
    assert "ZeroDivisionError" in replies[2]["content"] or "division" in replies[2]["content"]
    assert replies[3]["content"] == "invalid_arguments: the arguments must be a JSON object, not list"
    assert json.loads(replies[4]["content"]) == 2.0


def test_an_asynchronous_tool_answers_pending_and_its_result_comes_as_a_later_message() -> None:
    with Runtime(store="memory://", pool_size=1) as rt:
        rt.add_tool(NOTE_LATER, execution_type="ASYNCHRONOUS")
        script = [
            assistant(None, tool_call("note_later", {"text": "hi"}, "n1")),
            assistant("I will tell you when it is noted."),
            assistant("It is noted."),
        ]
        with ScriptedChatServer(script) as server:
            run = run_chat(client_for(server), "some-model", [QUESTION], rt, session_id="chat-async")
        assert run.final["content"] == "It is noted." and run.turns == 3
        assert rt.store.require_session("chat-async").state == {"note": "hi"}
    second, third = server.requests[1:]
    (reply,) = [m for m in second["messages"] if m["role"] == "tool"]
    assert reply["tool_call_id"] == "n1" and json.loads(reply["content"]) == {"status": "pending"}
    later = third["messages"][-1]
    assert later["role"] == "user" and "note_later (call n1)" in later["content"]
    assert later["content"].endswith(": noted hi")


def test_handle_tool_calls_answers_an_asynchronous_tool_pending() -> None:
    with Runtime(store="memory://", pool_size=1) as rt:
        rt.add_tool(NOTE_LATER, execution_type="ASYNCHRONOUS")
        message = assistant(None, tool_call("note_later", {"text": "hi"}, "n1"))
        (reply,) = handle_tool_calls(message, rt, session_id="chat-async")
        assert json.loads(reply["content"]) == {"status": "pending"}
        assert rt.store.require_session("chat-async").state == {}  # answered before the tool ended
        deadline = time.monotonic() + 30
        while rt.store.require_session("chat-async").state != {"note": "hi"}:
            assert time.monotonic() < deadline
            time.sleep(0.05)


def test_turn_limit(rt: Runtime) -> None:
    again = tool_call("get_current_weather", {"location": "Boston"})
    with ScriptedChatServer([assistant(None, again)] * 3) as server, pytest.raises(BudgetExceeded):
        run_chat(client_for(server), "some-model", [QUESTION], rt, max_turns=2)
    assert len(server.requests) == 2


def test_deferred_tools_are_loaded_through_tool_search(rt: Runtime) -> None:
    turns = [
        assistant(None, tool_call("tool_search", {"query": "add loyalty points to the customer"}, "s1")),
        assistant(None, tool_call("update_customer_loyalty_points", {"points_to_add": 5}, "u1")),
        assistant("Done: 5 points added."),
    ]
    with ScriptedChatServer(turns) as server:
        run = run_chat(client_for(server), "some-model", [QUESTION], rt, session_id="chat-loyalty")
    names = [[tool["function"]["name"] for tool in request["tools"]] for request in server.requests]
    assert "update_customer_loyalty_points" not in names[0]
    assert "update_customer_loyalty_points" in names[1]
    found = json.loads(server.requests[1]["messages"][-1]["content"])
    assert found["tools"][0]["function"]["name"] == "update_customer_loyalty_points"
    assert json.loads(server.requests[2]["messages"][-1]["content"])["loyalty_points"] == 5
    assert run.final["content"] == "Done: 5 points added."


def test_deepseek_gets_the_system_prompt_in_its_first_user_message(rt: Runtime) -> None:
    system = {"role": "system", "content": "Be brief."}
    with ScriptedChatServer([SEED_CALLS, compare_temperatures]) as server:
        run = run_chat(client_for(server), "deepseek-ai/deepseek-r1-0528-maas", [system, QUESTION], rt)
    assert len(server.requests) == 2
    for request in server.requests:  # every turn, and the transcript keeps the host's messages
        assert "system" not in [m["role"] for m in request["messages"]]
        assert request["messages"][0]["content"] == f"Be brief.\n\n{QUESTION['content']}"
    assert "tool_choice" not in server.requests[0]
    assert run.messages[:2] == [system, QUESTION]
    assert run.notes == ["deepseek: system prompt folded into the first user message"]


def test_deepseek_folds_into_content_parts_or_a_user_message_of_its_own() -> None:
    tools = [{"type": "function", "function": {"name": "f", "description": "", "parameters": {}}}]
    system = {"role": "system", "content": "Be brief."}
    parts = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
    shaped = shape_request(profile_for("deepseek-v3"), [system, parts], tools)
    assert shaped.messages == [
        {"role": "user", "content": [{"type": "text", "text": "Be brief."}, *parts["content"]]}
    ]
    assert shape_request(profile_for("deepseek-v3"), [system], tools).messages == [
        {"role": "user", "content": "Be brief."}
    ]


def test_gpt_oss_gets_definitions_in_the_system_prompt_and_no_forced_choice(rt: Runtime) -> None:
    named = {"type": "function", "function": {"name": "get_current_weather"}}
    with ScriptedChatServer([assistant("Warm.")]) as server:
        run_chat(client_for(server), "openai/gpt-oss-120b-instruct-maas", [QUESTION], rt, tool_choice=named)
    request = server.requests[0]
    assert request["tool_choice"] == "auto"
    system = request["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are a helpful assistant with access to the following functions.")
    assert '"name": "get_current_weather"' in system["content"]


def test_profiles_by_model_name() -> None:
    tools = [{"type": "function", "function": {"name": "f", "description": "", "parameters": {}}}]
    llama = shape_request(profile_for("meta/llama3-405b-instruct-maas"), [QUESTION], tools, "required")
    assert llama.tool_choice == "auto"
    assert (
        shape_request(
            profile_for("meta/llama-3.3-70b-instruct-maas"), [QUESTION], tools, "required"
        ).tool_choice
        == "required"
    )
    assert shape_request(profile_for(QWEN), [QUESTION], tools, "none").tool_choice == "none"
    assert shape_request(profile_for("gpt-4.1"), [QUESTION], tools).tool_choice is None
    # Without tools nothing changes, even for DeepSeek.
    system = {"role": "system", "content": "hi"}
    assert shape_request(profile_for("deepseek-v3"), [system], [], None).messages == [system]


def test_profiles_from_configuration_come_first(tmp_path: Path) -> None:
    config = tmp_path / "profiles.yaml"
    config.write_text("- name: house-qwen\n  pattern: qwen\n  unsupported_choices: [required]\n")
    profiles = load_profiles(config)
    assert profiles == [
        ModelProfile(name="house-qwen", pattern="qwen", unsupported_choices=frozenset({"required"}))
    ]
    assert profile_for(QWEN, profiles).name == "house-qwen"
    assert profile_for(QWEN).name == "qwen"
    with pytest.raises(ValueError, match="unknown tool_choice kinds"):
        ModelProfile.from_dict({"name": "x", "pattern": "x", "unsupported_choices": ["sometimes"]})


def test_chat_tools_leave_deferred_tools_out(rt: Runtime) -> None:
    names = [tool["function"]["name"] for tool in chat_tools(rt)]
    assert names == ["get_current_weather", "divide", "tool_search"]


# -- tool_search with hostile arguments ---------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        '{"query": "weather", "limit": "many"}',
        '{"query": "weather", "limit": 1e400}',
        '{"query": ["x"]}',
        "{}",
    ],
)
def test_tool_search_with_bad_arguments_is_an_error_reply(search_rt: Runtime, arguments: str) -> None:
    message = {"tool_calls": [{"id": "s1", "function": {"name": "tool_search", "arguments": arguments}}]}
    [reply] = handle_tool_calls(message, search_rt)
    assert reply["content"].startswith("invalid_arguments:"), reply


def test_tool_search_with_a_huge_query_or_limit_still_answers(search_rt: Runtime) -> None:
    query = json.dumps({"query": "weather " * 100_000, "limit": 10**30})
    message = {"tool_calls": [{"id": "s1", "function": {"name": "tool_search", "arguments": query}}]}
    [reply] = handle_tool_calls(message, search_rt)
    assert json.loads(reply["content"])["tools"][0]["function"]["name"] == "find_weather"


@pytest.mark.slow
def test_the_chat_host_sample_runs() -> None:
    host = SAMPLES / "hosts" / "chat_host.py"
    done = subprocess.run([sys.executable, str(host)], capture_output=True, text=True, timeout=60, check=True)
    assert "The temperature in New Delhi, India is 50 degrees Fahrenheit." in done.stdout
    assert "by 25 degrees Fahrenheit" in done.stdout


def test_host_helpers_are_exported_from_runtime_protocols() -> None:
    import runtime.protocols as protocols
    from runtime.protocols.agents import handle_required_actions

    for name in protocols.__all__:
        assert getattr(protocols, name) is not None, name
    assert protocols.run_chat is run_chat and protocols.handle_required_actions is handle_required_actions
    assert protocols.parse_arguments('{"a": 1}') == {"a": 1}
    assert protocols.output_text({"a": 1}) == '{"a": 1}'
