"""An OpenAI Agents SDK agent whose tools run in toolpen's sandbox (`pip install 'toolpen[agents]'`).

    python samples/hosts/openai_agents_host.py          # offline: a scripted model (scripted/agents_sdk.py)

The SDK's run context names the toolpen session: the second run finds the points of the first.
With a real model, drop ``model=`` (and set OPENAI_API_KEY).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agents import Agent, RunConfig, Runner
from scripted.agents_sdk import ScriptedModel, message, tool_call

from runtime import Runtime
from runtime.adapters.openai_agents import function_tools

ROOT = Path(__file__).resolve().parents[2]


async def main() -> None:
    with Runtime(store="memory://") as runtime:
        runtime.add_tool((ROOT / "samples" / "update_customer_loyalty_points.py").read_text())
        for points, call_id in ((50, "call_1"), (25, "call_2")):
            model = ScriptedModel(
                [[tool_call("update_customer_loyalty_points", {"points_to_add": points}, call_id)], [message("Done.")]]
            )
            agent = Agent(name="loyalty_agent", instructions="Help.", model=model, tools=function_tools(runtime))
            result = await Runner.run(
                agent, f"Add {points} points", context={"session_id": "s1"}, run_config=RunConfig(tracing_disabled=True)
            )
            print(f"agent: {result.final_output}")
        print(f"state: {runtime.store.require_session('s1').state}")


if __name__ == "__main__":
    asyncio.run(main())
