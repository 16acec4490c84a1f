"""Turn scripts: a scripted agent turn (the calls a model would make), read and played.

A turn script (JSON or YAML) names the session, the context, what the runtime registers (paths
relative to the script; the surfaces that play scripts read those: ``toolpen turn``, ``toolpen
app turn``, the playground of ``toolpen web``) and the calls in order::

    {"session": "s1", "context": {...}, "tools": ["../t.py"], "openapi": {"crm": "../crm.yaml"},
     "callbacks": ["../guard.py"], "fakes": ["../fake.py"],
     "calls": [{"tool": "t", "args": {...}}, [{"tool": "a"}, {"tool": "b"}]],
     "tool_execution_mode": "PARALLEL", "reply": "the model's last text"}

An item of ``calls`` that is a list is one model response that selected several tools: they run
through the one turn runner, ``Runtime.run_turn``, by the tool execution mode (the one given,
else the script's, else the runtime's). An ``ASYNCHRONOUS`` tool answers ``{"status":
"pending"}`` at once and its result is reported after the turn. With model callbacks registered,
each item is one model call: ``before_model`` / ``after_model`` run around it (``_model_step``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runtime._calls import ToolCall, TurnCall
from runtime._execution import parse_tool_execution_mode
from sandbox.common.errors import InvalidArguments

if TYPE_CHECKING:
    from runtime._results import ToolResult
    from runtime._runtime import Runtime


def parse_turn(text: str, where: str) -> dict[str, Any]:
    """A turn script from its JSON or YAML text; ``InvalidArguments`` says what ``where`` lacks."""
    import yaml

    try:
        script = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InvalidArguments(f"{where} is not valid JSON or YAML: {error}") from None
    if not isinstance(script, dict) or not isinstance(script.get("calls"), list):
        raise InvalidArguments(f'{where} must be an object with a "calls" list')
    return script


def play_turn(
    rt: Runtime, script: dict[str, Any], session: str, mode: str | None = None
) -> list[tuple[str, ToolResult]]:
    """Run the turn: before_agent callbacks, the calls, after_agent callbacks, then the results of
    asynchronous tools (``<tool> (result)``; their immediate answer is ``<tool> (started)``).

    An item of ``calls`` that is a list is one model response selecting several tools, run by
    ``mode``, else the script's ``tool_execution_mode``, else the runtime's (an app's own)."""
    context = dict(script.get("context") or {})
    rt.store.get_or_create_session(rt.app_name, rt.user_id, session, context.pop("state", None))
    chosen = parse_tool_execution_mode(mode or script.get("tool_execution_mode") or rt.tool_execution_mode)
    callbacks = rt.callbacks()
    steps: list[tuple[str, ToolResult]] = []
    if callbacks.get("before_agent"):
        before = rt.run_callbacks("before_agent", session_id=session, context=context)
        steps.append(("before_agent_callback", before))
        if not before.success or before.output is not None:
            return steps
    started: list[TurnCall] = []
    contents: list[dict[str, Any]] = [context.get("user_content") or {"role": "user", "parts": []}]
    responses = [item if isinstance(item, list) else [item] for item in script["calls"]]
    if script.get("reply") is not None:  # the model's last response: its text
        responses.append([])
    for index, item in enumerate(responses):
        selected = [_tool_call(call) for call in item]
        if callbacks.get("before_model") or callbacks.get("after_model"):
            reply = str(script.get("reply") or "") if index == len(script["calls"]) else None
            chosen_calls = _model_step(rt, steps, contents, selected, reply, context, session)
            if chosen_calls is None:
                return steps
            if not chosen_calls:
                break
            selected = chosen_calls
        answers = rt.run_turn(selected, mode=chosen, context=context, session_id=session)
        contents.append({"role": "user", "parts": [_function_response(answered) for answered in answers]})
        for answered in answers:
            if answered.later is None:
                steps.append((answered.call.tool, answered.result))
            else:
                steps.append((f"{answered.call.tool} (started)", answered.result))
                started.append(answered)
    if callbacks.get("after_agent"):
        steps.append(
            ("after_agent_callback", rt.run_callbacks("after_agent", session_id=session, context=context))
        )
    steps.extend((f"{item.call.tool} (result)", item.later.result()) for item in started if item.later)
    return steps


def _model_step(
    rt: Runtime,
    steps: list[tuple[str, ToolResult]],
    contents: list[dict[str, Any]],
    selected: list[ToolCall],
    reply: str | None,
    context: dict[str, Any],
    session: str,
) -> list[ToolCall] | None:
    """One model call of the turn: ``before_model`` with the request so far (a replacement stands
    in for the scripted response), then ``after_model`` with the response (the script's calls as
    function calls, or its ``reply``); the calls to run (none: the response ends the turn), or
    None when a callback failed. ``contents`` grows by the response."""
    request: dict[str, Any] = {"contents": list(contents), "config": _request_config(rt)}
    parts = [{"function_call": {"name": call.tool, "args": call.args}} for call in selected]
    response: dict[str, Any] = {"content": {"role": "model", "parts": parts or [{"text": reply or ""}]}}
    for kind in ("before_model", "after_model"):
        if not rt.callbacks().get(kind):
            continue
        if kind == "before_model":
            result = rt.run_callbacks(kind, session_id=session, context=context, llm_request=request)
        else:
            result = rt.run_callbacks(kind, session_id=session, context=context, llm_response=response)
        steps.append((f"{kind}_callback", result))
        if not result.success:
            return None
        if result.output is not None:
            response = result.output
            if kind == "before_model":
                break  # the model is not called: the scripted response is not used
    content = response.get("content") or {}
    calls = [
        ToolCall(str(part["function_call"].get("name")), dict(part["function_call"].get("args") or {}))
        for part in content.get("parts") or []
        if isinstance(part, dict) and isinstance(part.get("function_call"), dict)
    ]
    contents.append(content)
    return calls


def _request_config(rt: Runtime) -> dict[str, Any]:
    """The model call's ``config`` as a callback receives it: the runtime's tools declared (CES and
    ADK always send one; callbacks call ``llm_request.config.hide_tool(...)`` on it)."""
    declarations = [
        {"name": tool.name, "description": tool.spec.description, "parameters": tool.spec.parameters}
        for tool in rt.registry
    ]
    return {"tools": [{"function_declarations": declarations}]}


def _function_response(answered: TurnCall) -> dict[str, Any]:
    """A call's answer as the next model request holds it."""
    result = answered.result
    response = (
        {"result": result.output}
        if result.success
        else {"error": result.error.to_dict() if result.error else {}}
    )
    return {"function_response": {"name": answered.call.tool, "response": response}}


def _tool_call(call: Any) -> ToolCall:
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        raise InvalidArguments(f'a turn\'s call is {{"tool": NAME, "args": {{...}}}}, not {str(call)[:80]}')
    return ToolCall(call["tool"], dict(call.get("args") or {}))
