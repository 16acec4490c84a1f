"""A Google ADK agent whose tools run in toolpen's sandbox (`pip install 'toolpen[adk]'`).

    python samples/hosts/adk_host.py                     # offline: a scripted model (scripted/adk_llm.py)

ADK owns the session: the tool's state change goes into ``ToolContext.state`` and ADK's session
service stores it. With a real model, give ``model="gemini-2.5-flash"`` (and GOOGLE_API_KEY).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from google.adk.agents import LlmAgent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types
from scripted.adk_llm import ScriptedLlm, text, tool_call

from runtime import Runtime
from runtime.adapters.adk import adk_tools

ROOT = Path(__file__).resolve().parents[2]


async def main() -> None:
    service = InMemorySessionService()
    await service.create_session(app_name="shop", user_id="u1", session_id="s1")
    with Runtime(store="memory://") as runtime:
        runtime.add_tool((ROOT / "samples" / "update_customer_loyalty_points.py").read_text())
        for points in (50, 25):
            model = ScriptedLlm(
                turns=[tool_call("update_customer_loyalty_points", {"points_to_add": points}, f"c{points}"), text("Done.")]
            )
            agent = LlmAgent(name="loyalty_agent", model=model, tools=adk_tools(runtime))
            runner = Runner(agent=agent, app_name="shop", session_service=service)
            message = types.Content(role="user", parts=[types.Part(text=f"Add {points} points")])
            async for event in runner.run_async(user_id="u1", session_id="s1", new_message=message):
                for part in event.content.parts if event.content else []:
                    if part.text:
                        print(f"agent: {part.text}")
    session = await service.get_session(app_name="shop", user_id="u1", session_id="s1")
    print(f"state (ADK's session service): {session.state}")


if __name__ == "__main__":
    asyncio.run(main())
