"""Issue 32's benchmark: what a call through each framework adapter costs, split from the sandbox.

For each adapter (the Agents SDK's ``FunctionTool``, ADK's ``BaseTool``, LangChain's tool) one
trivial tool (``add(a, b)``) is called four ways, in the same process and the same seconds:

- ``native``: the framework's own in-process tool for the same function, through the same entry
  point the framework's runner uses (``on_invoke_tool``, ``run_async``, ``invoke`` of a tool call);
- ``rt.call``: toolpen's ``Runtime.call`` of the registered tool, in the session mode the adapter
  uses (the Agents SDK and LangChain: a toolpen session; ADK: ephemeral, ADK owns the state);
- ``adapter``: the adapter's tool through that entry point: ``adapter - rt.call`` is the adapter's
  own share, ``rt.call - native`` the sandbox's (workers, store, checks);
- paced: 2 ms of sleep after each call (single-use workers are then ready, as between a model's
  turns); the four are interleaved, ``BATCH`` calls of one then the next, for ``ROUNDS`` rounds.

Run: ``.venv/bin/python bench/bench_adapters.py [--rounds 10]`` (the agents, adk and langchain
extras). Prints the medians in ms and ``adapter / rt.call`` per framework, and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from agents import FunctionTool
from agents import function_tool as agents_function_tool
from agents.tool_context import ToolContext as AgentsToolContext
from google.adk.agents import LlmAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.sessions import InMemorySessionService
from google.adk.tools import FunctionTool as AdkFunctionTool
from google.adk.tools.tool_context import ToolContext as AdkToolContext
from langchain_core.tools import BaseTool
from langchain_core.tools import tool as langchain_tool

from runtime import Runtime
from runtime.adapters.adk import adk_tools
from runtime.adapters.langchain import structured_tools
from runtime.adapters.openai_agents import function_tools

SOURCE = 'def add(a: int, b: int) -> int:\n    """Adds two numbers."""\n    return a + b\n'
ARGS = {"a": 2, "b": 3}
BATCH = 20
PAUSE = 0.002


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


Call = Callable[[], Awaitable[Any]]


def agents_calls(rt: Runtime) -> dict[str, Call]:
    native = agents_function_tool(add)
    (sandboxed,) = function_tools(rt)
    context = {"session_id": "bench-agents"}

    ids = itertools.count()
    arguments = json.dumps(ARGS)

    def invoke(tool: FunctionTool) -> Call:
        async def run() -> Any:  # a new call id each time, as the SDK's tool calls have
            call_id = f"c{next(ids)}"
            ctx = AgentsToolContext(
                context=context, tool_name=tool.name, tool_call_id=call_id, tool_arguments=arguments
            )
            return await tool.on_invoke_tool(ctx, arguments)

        return run

    return {
        "native": invoke(native),
        "rt.call": lambda: asyncio.to_thread(rt.call, "add", ARGS, session_id="bench-agents"),
        "adapter": invoke(sandboxed),
    }


async def adk_calls(rt: Runtime) -> dict[str, Call]:
    service = InMemorySessionService()
    session = await service.create_session(app_name="bench", user_id="u", session_id="s")
    agent = LlmAgent(name="bench_agent", model="scripted")
    invocation = InvocationContext(session_service=service, invocation_id="inv", agent=agent, session=session)
    native = AdkFunctionTool(add)
    (sandboxed,) = adk_tools(rt)

    def invoke(tool: Any) -> Call:
        async def run() -> Any:
            return await tool.run_async(
                args=dict(ARGS), tool_context=AdkToolContext(invocation, function_call_id="c")
            )

        return run

    return {
        "native": invoke(native),
        "rt.call": lambda: asyncio.to_thread(rt.call, "add", ARGS),
        "adapter": invoke(sandboxed),
    }


def langchain_calls(rt: Runtime) -> dict[str, Call]:
    native = langchain_tool(add)
    (sandboxed,) = structured_tools(rt)
    config = {"configurable": {"session_id": "bench-langchain"}}

    def invoke(tool: BaseTool) -> Call:
        async def run() -> Any:
            return await tool.ainvoke(
                {"name": "add", "args": ARGS, "id": "c", "type": "tool_call"}, config=config
            )

        return run

    return {
        "native": invoke(native),
        "rt.call": lambda: asyncio.to_thread(rt.call, "add", ARGS, session_id="bench-langchain"),
        "adapter": invoke(sandboxed),
    }


async def measure(calls: dict[str, Call], rounds: int) -> dict[str, float]:
    """The median ms of each way, interleaved in batches."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for call in calls.values():  # warm up: imports, first workers, sessions
        for _ in range(3):
            await call()
    for _ in range(rounds):
        for name, call in calls.items():
            for _ in range(BATCH):
                start = time.perf_counter()
                await call()
                samples[name].append(time.perf_counter() - start)
                await asyncio.sleep(PAUSE)
    return {name: statistics.median(values) * 1e3 for name, values in samples.items()}


async def main(rounds: int) -> None:
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    with Runtime(store="memory://") as rt:
        rt.add_tool(SOURCE)
        frameworks = {
            "openai_agents": agents_calls(rt),
            "adk": await adk_calls(rt),
            "langchain": langchain_calls(rt),
        }
        print(f"{'framework':<14} {'native':>8} {'rt.call':>8} {'adapter':>8} {'adapter/rt.call':>16}")
        for name, calls in frameworks.items():
            medians = await measure(calls, rounds)
            ratio = medians["adapter"] / medians["rt.call"]
            print(
                f"{name:<14} {medians['native']:>8.3f} {medians['rt.call']:>8.3f} "
                f"{medians['adapter']:>8.3f} {ratio:>15.2f}x"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    asyncio.run(main(parser.parse_args().rounds))
