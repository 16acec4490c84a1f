"""The CES runtime's globals and classes, as tool and callback code uses them, in real workers, under both walls."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from runtime import Runtime

USER_TURN = {"role": "user", "parts": [{"text": "I want a refund"}]}
EVENTS = [
    {"author": "user", "content": {"role": "user", "parts": [{"text": "<event>session start</event>"}]}},
    {"author": "support", "content": {"role": "model", "parts": [{"text": "Hello!"}]}},
    {"author": "user", "content": {"role": "user", "parts": [{"text": "hi"}]}},
    {"author": "user", "content": {"role": "user", "parts": [{"text": "my order"}]}},
]


@pytest.fixture(params=["all", "process"])
def rt(request: pytest.FixtureRequest) -> Iterator[Runtime]:
    """A runtime under both walls: CES code runs the same with and without the language wall."""
    with Runtime(store="memory://", walls=request.param) as runtime:
        yield runtime


def tool(body: str, signature: str = "probe() -> object") -> str:
    return f'def {signature}:\n    """Probe."""\n' + textwrap.indent(textwrap.dedent(body), "    ")


def call(rt: Runtime, source: str, args: dict | None = None, **context: object) -> object:
    name = rt.add_tool(source, replace=True).name
    result = rt.call(name, args or {}, context={"user_content": USER_TURN, **context})
    assert result.success, result.error
    return result.output


def test_context_is_a_tool_context_with_the_documented_surface(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            assert isinstance(context, ToolContext) and isinstance(context, CallbackContext)
            assert context.variables is context.state
            context.set_variable("plan", "gold")
            context.variables["tier"] = "2"
            context.remove_variable("stale")
            try:
                context.remove_variable("never_set")
                raise AssertionError("removing an unset variable must raise")
            except KeyError:
                pass
            return [context.get_variable("plan"), context.get_variable("nope", "dflt"),
                    context.function_call_id, context.agent_name, context.invocation_id,
                    context.session_id]
            """
        ),
        state={"stale": "x"},
        agent_name="support",
        invocation_id="inv-1",
        function_call_id="fc-1",
    )
    assert output == ["gold", "dflt", "fc-1", "support", "inv-1", ""]


def test_state_changes_through_the_variable_functions_are_committed(rt: Runtime) -> None:
    rt.add_tool(
        tool(
            """
            set_variable("count", str(int(get_variable("count", "0")) + 1))
            if "old" in context.state:
                remove_variable("old")
            return get_variable("count")
            """
        )
    )
    rt.call("probe", {}, session_id="s", context={"state": {"old": "1"}})
    second = rt.call("probe", {}, session_id="s")
    assert second.output == "2" and second.state == {"count": "2"}


def test_user_content_is_an_object_and_the_dict_the_samples_index(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            content = context.user_content
            return [content.parts[0].text, content.role, content["parts"][0]["text"],
                    content["role"], content.is_user(), "parts" in content,
                    content.parts[0].get("function_call", "none"), isinstance(content, Content)]
            """
        ),
    )
    assert output == ["I want a refund", "user", "I want a refund", "user", True, True, "none", True]


def test_events_and_the_last_user_input_and_agent_output(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            events = context.events
            return [len(events), events[1].is_agent(), events[1].is_agent("support"),
                    events[0].is_user(), events[1]["author"],
                    [p.text for p in context.get_last_user_input()],
                    [p.text for p in context.get_last_agent_output()]]
            """
        ),
        events=EVENTS,
    )
    assert output == [4, True, True, True, "support", ["hi", "my order"], ["Hello!"]]


def test_the_last_user_input_falls_back_to_user_content(rt: Runtime) -> None:
    output = call(rt, tool("return [p.text for p in context.get_last_user_input()]"))
    assert output == ["I want a refund"]


def test_session_events_carry_the_ces_state_delta(rt: Runtime) -> None:
    rt.add_tool(tool('context.state["a"] = "1"\nreturn None'))
    rt.add_tool(
        'def read() -> list:\n    """Read."""\n'
        "    return [e.actions.state_delta for e in context.events if e.actions.state_delta]\n"
    )
    rt.call("probe", {}, session_id="s")
    assert rt.call("read", {}, session_id="s").output == [{"a": "1"}]


LOOKUP = '''
def lookup(order_id: str) -> dict:
    """Looks an order up."""
    return {"order_id": order_id, "status": "shipped"}
'''


def test_tools_results_are_dicts_and_responses(rt: Runtime) -> None:
    rt.add_tool(LOOKUP)
    output = call(
        rt,
        tool(
            """
            res = tools.lookup({"order_id": "A-1"})
            res.raise_for_status()
            by_keyword = tools.lookup(order_id="A-2")
            return [res["status"], res.json()["order_id"], res.status_code, res.ok,
                    by_keyword.json()["order_id"], res.get("status")]
            """
        ),
    )
    assert output == ["shipped", "A-1", 200, True, "A-2", "shipped"]


def test_async_tools_return_futures(rt: Runtime) -> None:
    rt.add_tool(LOOKUP)
    output = call(
        rt,
        tool(
            """
            first = async_tools.lookup({"order_id": "A-1"})
            second = async_tools.lookup({"order_id": "A-2"})
            failing = async_tools.lookup({"wrong": 1})
            try:
                failing()
                failed = None
            except StatusError as error:
                failed = [error.status_code, error.kind]
            return [first()["order_id"], second().json()["status"], failed]
            """
        ),
    )
    assert output == ["A-1", "shipped", [400, "invalid_arguments"]]


def test_a_failed_tool_call_is_a_status_error(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            try:
                tools.missing({})
            except StatusError as error:
                return [error.status_code, error.reason]
            """
        ),
    )
    assert output == [404, "not_found"]


def test_ces_requests_refuses_keywords_ces_refuses(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            try:
                ces_requests.get("https://example.com", timeout=5)
            except TypeError as error:
                return str(error)
            """
        ),
    )
    assert output == "Requests.request() got an unexpected keyword argument 'timeout'"


def test_part_constructors(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            import json
            parts = [
                Part.from_text("hi"),
                Part.from_function_call("lookup", {"order_id": "A-1"}),
                Part.from_function_response("lookup", {"result": {"ok": True}}),
                Part.from_agent_transfer("billing"),
                Part.from_end_session(reason="done", escalated=True),
            ]
            payload = Part.from_json('{"card": 1}')
            custom = Part.from_customized_response(content="Press 1", enable_dtmf=True)
            audio = Part.from_audio("gs://b/a.wav")
            inline = Part.from_inline_data(b"aGk=", "text/plain")
            checks = [
                parts[1].has_function_call("lookup"), parts[1].has_function_call("other"),
                parts[2].has_function_response("lookup"), parts[0].text_or_transcript(),
                payload.inline_data.mime_type, json.loads(payload.inline_data.raw_data),
                custom.inline_data.mime_type, json.loads(custom.inline_data.raw_data)["enableDtmf"],
                json.loads(audio.inline_data.raw_data)["audioUri"], inline.inline_data.raw_data.decode(),
            ]
            return {"parts": parts, "checks": checks}
            """
        ),
    )
    assert output["parts"] == [
        {"text": "hi"},
        {"function_call": {"name": "lookup", "args": {"order_id": "A-1"}}},
        {"function_response": {"name": "lookup", "response": {"result": {"ok": True}}}},
        {"function_call": {"name": "transfer_to_agent", "args": {"agent_name": "billing"}}},
        {"function_call": {"name": "end_session", "args": {"reason": "done", "session_escalated": True}}},
    ]
    assert output["checks"] == [
        True,
        False,
        True,
        "hi",
        "application/json",
        {"card": 1},
        "application/json+agentResponse",
        True,
        "gs://b/a.wav",
        "hi",
    ]


def test_blob_raw_data_fills_data_and_transcript(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            blob = Blob(mime_type="text/plain")
            blob.raw_data = b"hello"
            audio = Blob(mime_type="audio/wav", transcript="spoken words")
            part = Part(inline_data=audio)
            return [blob.data.decode(), blob.raw_data.decode(), Blob.from_json("{}").mime_type,
                    part.text_or_transcript(), blob.display_name]
            """
        ),
    )
    assert output == ["aGVsbG8=", "hello", "application/json", "spoken words", None]


def test_classes_accept_camel_case_and_keep_unknown_keys(rt: Runtime) -> None:
    output = call(
        rt,
        tool(
            """
            part = Part.model_validate({"functionCall": {"name": "f", "args": {}}, "thought": True})
            event = Event(author="user", invocation_id="i", content=Content(role="user", parts=[part]))
            response = FunctionResponse(name="f", response={"result": 1}, willContinue=True)
            return [part.function_call.name, part["thought"], event.parts()[0].function_call.name,
                    event.has_error(), response.will_continue, EventActions().state_delta]
            """
        ),
    )
    assert output == ["f", True, "f", False, True, {}]


def test_callbacks_receive_objects_and_return_them(rt: Runtime) -> None:
    rt.add_callback(
        """
def before_model_callback(callback_context: CallbackContext, llm_request: LlmRequest) -> Optional[LlmResponse]:
    last = llm_request.contents[-1].parts[0].text
    llm_request.hide_tool("issue_refund")
    if "password" in last:
        return LlmResponse.from_parts([Part.from_text("No passwords.")])
    return None
""".replace("Optional[LlmResponse]", "LlmResponse | None")
    )
    request = {"contents": [{"role": "user", "parts": [{"text": "my password?"}]}]}
    result = rt.run_callbacks("before_model", llm_request=request)
    assert result.output == {"content": {"role": "model", "parts": [{"text": "No passwords."}]}}
    quiet = rt.run_callbacks("before_model", llm_request={"contents": [USER_TURN]})
    assert quiet.success and quiet.output is None


def test_after_model_callback_edits_the_response_object(rt: Runtime) -> None:
    rt.add_callback(
        """
def after_model_callback(callback_context, llm_response):
    if not llm_response.content or not llm_response.content.is_model():
        return None
    llm_response.content.parts.append(Part.from_text("Anything else?"))
    llm_response.partial = True
    return llm_response
"""
    )
    response = {"content": {"role": "model", "parts": [{"text": "Done."}]}}
    result = rt.run_callbacks("after_model", llm_response=response)
    assert result.output == {
        "content": {"role": "model", "parts": [{"text": "Done."}, {"text": "Anything else?"}]},
        "partial": True,
    }


def test_before_agent_callback_returns_content(rt: Runtime) -> None:
    rt.add_callback(
        """
def before_agent_callback(callback_context):
    text = callback_context.user_content.parts[0].text
    if text.startswith("<event>session start"):
        callback_context.set_variable("greeted", "true")
        return Content(role="model", parts=[Part.from_text("Welcome!")])
    return None
"""
    )
    start = {"user_content": {"role": "user", "parts": [{"text": "<event>session start</event>"}]}}
    result = rt.run_callbacks("before_agent", context=start, session_id="s")
    assert result.output == {"role": "model", "parts": [{"text": "Welcome!"}]}
    assert rt.store.require_session("s").state == {"greeted": "true"}


def test_tool_callbacks_receive_a_tool_object(rt: Runtime) -> None:
    rt.add_tool(LOOKUP)
    rt.add_callback(
        """
def before_tool_callback(tool: Tool, input: dict, callback_context: CallbackContext):
    if isinstance(tool, Tool) and tool.name == "lookup" and input["order_id"] == "blocked":
        return {"status": "refused", "by": tool["name"], "description": tool.description}
    return None
"""
    )
    result = rt.call("lookup", {"order_id": "blocked"})
    assert result.output == {"status": "refused", "by": "lookup", "description": "Looks an order up."}


@pytest.mark.parametrize(
    "name",
    ["Part", "Content", "Blob", "FunctionCall", "FunctionResponse", "Event", "EventActions",
     "LlmRequest", "LlmResponse", "CallbackContext", "ToolContext", "Tool", "StatusError", "AsyncTools"],
)  # fmt: skip
def test_every_class_is_a_global(rt: Runtime, name: str) -> None:
    assert call(rt, tool(f"return {name}.__name__".replace(".__name__", " is not None"))) is True


def test_a_before_tool_callback_may_edit_the_input_in_place(rt: Runtime) -> None:
    rt.add_tool(LOOKUP)
    rt.add_callback(
        """
def before_tool_callback(tool, input, callback_context):
    input["order_id"] = input["order_id"].strip().upper()
    return None
"""
    )
    assert rt.call("lookup", {"order_id": " a-7 "}).output == {"order_id": "A-7", "status": "shipped"}


def test_an_edited_input_is_checked_like_the_models(rt: Runtime) -> None:
    rt.add_tool(LOOKUP)
    rt.add_callback(
        "def before_tool_callback(tool, input, callback_context):\n    input['order_id'] = 7\n    return None\n"
    )
    result = rt.call("lookup", {"order_id": "A-7"})
    assert result.error is not None and result.error.kind == "invalid_arguments"


def test_hide_tool_reaches_the_hosts_request(rt: Runtime) -> None:
    rt.add_callback(
        """
def before_model_callback(callback_context, llm_request):
    if callback_context.get_variable("tier", "standard") != "gold":
        llm_request.hide_tool("issue_refund")
    llm_request.contents[-1].parts.append(Part.from_text("(tier checked)"))
    return None
"""
    )
    request = {"model": "m", "contents": [{"role": "user", "parts": [{"text": "refund please"}]}]}
    result = rt.run_callbacks("before_model", llm_request=request)
    assert result.success and result.output is None
    assert request == {
        "model": "m",
        "contents": [{"role": "user", "parts": [{"text": "refund please"}, {"text": "(tier checked)"}]}],
        "config": {"excluded_tools": ["issue_refund"]},
    }
    untouched = {"contents": [USER_TURN]}
    rt.run_callbacks("before_model", llm_request=untouched, context={"state": {"tier": "gold"}})
    assert untouched["contents"][0]["parts"][-1] == {"text": "(tier checked)"}
    assert "config" not in untouched


GUARDRAIL = """
def before_model_callback(callback_context, llm_request):
    text = " ".join(p.text or "" for c in llm_request.contents for p in c.parts or [])
    if "card number" in text.lower():
        return {"decision": "TRIGGER", "reason": "payment data"}
    return {"decision": "OK"}
"""


def test_guardrail_code_callbacks_pass_or_trigger(rt: Runtime) -> None:
    rt.add_callback(GUARDRAIL)
    rt.add_callback(
        "def before_model_callback(callback_context, llm_request):\n"
        "    return LlmResponse.from_parts([Part.from_text('after the guardrail')])\n"
    )
    passed = rt.run_callbacks("before_model", llm_request={"contents": [USER_TURN]})
    assert passed.output == {"content": {"role": "model", "parts": [{"text": "after the guardrail"}]}}
    card = {"contents": [{"role": "user", "parts": [{"text": "my card number is 4111"}]}]}
    triggered = rt.run_callbacks("before_model", llm_request=card)
    assert triggered.output == {"decision": "TRIGGER", "reason": "payment data"}
