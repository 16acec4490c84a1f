"""A Chat Completions host loop on toolpen: the seed's Boston / New Delhi question.

    python samples/hosts/chat_host.py                       # offline: a local scripted model
    python samples/hosts/chat_host.py --base-url URL --model qwen/qwen3-next-80b-a3b-instruct-maas

With --base-url it talks to any OpenAI-compatible server (the API key comes from OPENAI_API_KEY).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from pathlib import Path

from openai import OpenAI
from servers.openai_compatible import ScriptedChatServer, assistant, tool_call

from runtime import Runtime
from runtime.protocols.chat import run_chat

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Which city has a higher temperature, Boston or new Delhi and by how much in F?"


def scripted_model() -> contextlib.AbstractContextManager:
    """A local scripted model (servers/, also used by the tests), replaying the seed's two turns."""
    calls = assistant(
        "I'll call the weather function for both cities.",
        tool_call("get_current_weather", {"location": "Boston, MA", "unit": "fahrenheit"}),
        tool_call("get_current_weather", {"location": "New Delhi, India", "unit": "fahrenheit"}),
    )
    answer = assistant("Boston has a higher temperature than New Delhi by 25 degrees Fahrenheit.")
    return ScriptedChatServer([calls, answer])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="qwen/qwen3-next-80b-a3b-instruct-maas")
    options = parser.parse_args()
    with contextlib.ExitStack() as stack:
        base_url = options.base_url or stack.enter_context(scripted_model()).base_url
        client = OpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "local"))
        runtime = stack.enter_context(Runtime(store="memory://", pool_size=1))
        runtime.add_tool((ROOT / "samples" / "get_current_weather.py").read_text())
        run = run_chat(client, options.model, [{"role": "user", "content": QUESTION}], runtime)
        for message in run.messages:
            print(f"{message['role']:>9}: {message.get('content') or message.get('tool_calls')}")
        for note in run.notes:
            print(f"note: {note}")


if __name__ == "__main__":
    main()
