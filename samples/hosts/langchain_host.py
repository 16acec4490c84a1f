"""A LangChain tool-calling loop whose tools run in toolpen's sandbox (`pip install 'toolpen[langchain]'`).

    python samples/hosts/langchain_host.py               # offline: a scripted chat model (scripted/langchain_chat.py)

The run config's ``configurable.session_id`` names the toolpen session. With a real model, use any
chat model that supports ``bind_tools`` (for example ``langchain_openai.ChatOpenAI``).
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage
from scripted.langchain_chat import ScriptedChatModel, tool_call

from runtime import Runtime
from runtime.adapters.langchain import structured_tools

ROOT = Path(__file__).resolve().parents[2]
CONFIG = {"configurable": {"session_id": "s1"}}


def main() -> None:
    with Runtime(store="memory://") as runtime:
        runtime.add_tool((ROOT / "samples" / "update_customer_loyalty_points.py").read_text())
        tools = {tool.name: tool for tool in structured_tools(runtime)}
        scripted = ScriptedChatModel(
            turns=[tool_call("update_customer_loyalty_points", {"points_to_add": 50}, "c1"), AIMessage("Done.")]
        )
        model = scripted.bind_tools(list(tools.values()))
        messages = [HumanMessage("Add 50 points")]
        while (reply := model.invoke(messages)).tool_calls:
            messages.append(reply)
            messages += [tools[call["name"]].invoke(call, config=CONFIG) for call in reply.tool_calls]
            print(f"tool: {messages[-1].content}")
        print(f"agent: {reply.content}")
        print(f"state: {runtime.store.require_session('s1').state}")


if __name__ == "__main__":
    main()
