"""A host loop that runs the agent and model callbacks at their moments (offline, scripted model).

    python samples/hosts/callback_host.py "What is my password?"
    python samples/hosts/callback_host.py "Refund 500 EUR on A-1002"

The order is ADK's: before_agent -> (before_model -> model -> after_model -> tools)* -> after_agent.
A `before_*` callback that returns a dict replaces the step; tool callbacks run inside `rt.call`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from runtime import Runtime

SAMPLES = Path(__file__).resolve().parents[1]


def scripted_model(request: dict[str, Any]) -> dict[str, Any]:
    """Stands in for an LLM: asks for a refund tool call once, then answers with the tool's result."""
    results = [p["function_response"] for c in request["contents"] for p in c["parts"] if "function_response" in p]
    if results:
        return {"content": {"role": "model", "parts": [{"text": json.dumps(results[-1]["response"])}]}}
    call = {"name": "issue_refund", "args": {"order_id": "A-1002", "amount": 500}}
    return {"content": {"role": "model", "parts": [{"function_call": call}]}}


def run_turn(rt: Runtime, session: str, text: str) -> str:
    """One agent turn; returns the final text."""
    context = {"user_content": {"role": "user", "parts": [{"text": text}]}}
    skipped = rt.run_callbacks("before_agent", session_id=session, context=context).output
    if skipped is not None:
        return skipped["parts"][0]["text"]
    request: dict[str, Any] = {"contents": [context["user_content"]]}
    for _ in range(5):
        response = rt.run_callbacks("before_model", session_id=session, context=context, llm_request=request).output
        if response is None:
            response = scripted_model(request)
            replaced = rt.run_callbacks("after_model", session_id=session, context=context, llm_response=response)
            response = replaced.output or response
        calls = [part["function_call"] for part in response["content"]["parts"] if "function_call" in part]
        if not calls:
            rt.run_callbacks("after_agent", session_id=session, context=context)
            return response["content"]["parts"][0]["text"]
        request["contents"].append(response["content"])
        for call in calls:
            result = rt.call(call["name"], call["args"], context=context, session_id=session)
            answer = result.output if result.success else {"error": result.error.message if result.error else ""}
            part = {"function_response": {"name": call["name"], "response": answer}}
            request["contents"].append({"role": "user", "parts": [part]})
    return "(turn limit reached)"


def main() -> None:
    text = sys.argv[1] if len(sys.argv) > 1 else "Refund 500 EUR on A-1002"
    with Runtime() as rt:
        rt.add_tool((SAMPLES / "issue_refund.py").read_text())
        rt.add_callback((SAMPLES / "callbacks" / "model_guard.py").read_text())
        rt.add_callback((SAMPLES / "callbacks" / "refund_guard.py").read_text())
        print(run_turn(rt, "host-demo", text))
        print("state:", json.dumps(rt.store.require_session("host-demo").state))


if __name__ == "__main__":
    main()
