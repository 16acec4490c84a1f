"""The async twins of the Chat Completions host, with the real ``openai.AsyncOpenAI`` client."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from openai import AsyncOpenAI

from runtime import Runtime
from runtime.protocols.chat import ahandle_tool_calls, arun_chat
from samples.hosts.servers.openai_compatible import ScriptedChatServer, assistant, tool_call
from tests.runtime.protocols.test_chat import QUESTION, SEED_CALLS, compare_temperatures, sample


@pytest.fixture(scope="module")
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://", pool_size=1) as runtime:
        runtime.add_tool(sample("get_current_weather"))
        yield runtime


def test_arun_chat_runs_the_turns_like_run_chat(rt: Runtime) -> None:
    async def scenario(url: str) -> str:
        async with AsyncOpenAI(base_url=url, api_key="test", max_retries=0, timeout=30) as client:
            run = await arun_chat(client, "gpt-4.1", [QUESTION], rt)
        return str(run.final["content"])

    with ScriptedChatServer([SEED_CALLS, compare_temperatures]) as server:
        final = asyncio.run(scenario(server.base_url))
    assert final == "Boston is 25 F warmer than New Delhi."
    assert [m["role"] for m in server.requests[1]["messages"]] == ["user", "assistant", "tool", "tool"]


def test_ahandle_tool_calls_answers_each_call_and_a_huge_integer_is_invalid_arguments(rt: Runtime) -> None:
    message = assistant(
        "",
        tool_call("get_current_weather", {"location": "Boston, MA"}),
        tool_call("get_current_weather", {"location": "x"}),
    )
    message["tool_calls"][1]["function"]["arguments"] = '{"location": ' + "9" * 5000 + "}"
    replies = asyncio.run(ahandle_tool_calls(message, rt))
    assert "75 degrees" in replies[0]["content"]
    assert replies[1]["content"].startswith("invalid_arguments: the arguments hold a number")
