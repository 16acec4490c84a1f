"""Model callbacks driven by a turn script: each scripted response is one model call, with
``before_model`` given the request so far (a real ``LlmRequest``) and ``after_model`` the
response (a real ``LlmResponse``); the script's ``reply`` is the model's last, text response."""

from __future__ import annotations

from runtime import Runtime
from runtime._turns import play_turn

SET_FLAG = '''
def set_flag(value: str) -> dict:
    """Sets a flag in the state."""
    context.state["flag"] = value
    return {"flag": value}
'''

MODEL_CALLBACKS = """
def before_model_callback(callback_context, llm_request):
    seen = callback_context.state.get("requests", "")
    kinds = [type(llm_request).__name__, str(len(llm_request.contents))]
    callback_context.state["requests"] = seen + ",".join(kinds) + ";"
    llm_request.config.hide_tool("transfer_to_agent")  # as polymorphic_pizza's does: CES sends a config
    callback_context.state["declared"] = [d.name for d in llm_request.config.tools[0].function_declarations]
    return None


def after_model_callback(callback_context, llm_response):
    text = llm_response.content.parts[0].text
    if text:
        return LlmResponse.from_parts([Part.from_text(text=text.upper())])
    return None
"""


def test_a_turn_drives_the_model_callbacks(rt: Runtime) -> None:
    rt.add_tool(SET_FLAG)
    rt.add_callback(MODEL_CALLBACKS)
    script = {"calls": [{"tool": "set_flag", "args": {"value": "x"}}], "reply": "done"}
    steps = play_turn(rt, script, "s")
    names = [name for name, _ in steps]
    assert names == [
        "before_model_callback",
        "after_model_callback",
        "set_flag",
        "before_model_callback",
        "after_model_callback",
    ]
    assert all(result.success for _, result in steps), [r.error for _, r in steps]
    assert steps[-1][1].output["content"]["parts"][0]["text"] == "DONE"
    state = rt.store.require_session("s").state
    # the first request holds the user's content, the second also the call and its response
    assert state["requests"] == "LlmRequest,1;LlmRequest,3;" and state["flag"] == "x"
    assert state["declared"] == ["set_flag"]
