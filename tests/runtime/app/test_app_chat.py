"""``AppChat`` on the sample apps against a scripted Chat Completions server on 127.0.0.1: the
requests as sent per model profile, the callbacks on real requests and responses, transfers,
guardrails, end_session, bad calls of the model and a failing endpoint."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from runtime import Runtime
from runtime.app import AppChat, app_runtime, load_app
from tests.model_server import ModelServer, call, calls, model_server, says

SAMPLES = Path(__file__).resolve().parents[3] / "samples/apps"
SERVICE = load_app(SAMPLES / "Customer_Service")
DESK = load_app(SAMPLES / "Support_Desk")


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with model_server() as server:
        yield server


@pytest.fixture(scope="module")
def service() -> Iterator[Runtime]:
    with app_runtime(SERVICE, fakes=True) as rt:
        yield rt


def client(model: ModelServer, timeout: float = 30) -> openai.OpenAI:
    return openai.OpenAI(base_url=model.base_url, api_key="sk-test", max_retries=0, timeout=timeout)


def greeted(
    rt: Runtime, model: ModelServer, session: str, name: str = "test-model", **options: Any
) -> AppChat:
    """A Front Desk conversation past its first turn, which the before_agent callback answers."""
    chat = AppChat(rt, SERVICE, client(model, **options), name, session_id=session)
    first = chat.turn("hello")
    assert first.reply == "Olá! How can I help you today?" and not first.of("request")
    return chat


def names(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools", [])]


def test_the_request_is_built_from_the_export(service: Runtime, model: ModelServer) -> None:
    chat = greeted(service, model, "shape")
    model.play(calls(call("get_customer", {"customer_id": "123"})), says("Hi Ana!"))
    turn = chat.turn("I am customer 123")
    assert turn.success and turn.reply == "Hi Ana!" and turn.agent == "Front Desk"
    first = model.requests[0]
    system = first["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are the customer service of a small online tea shop")
    assert "Look the customer up with get_customer." in system["content"]  # {@TOOL: ...} rendered
    assert "{@" not in system["content"]
    assert [m["role"] for m in first["messages"][1:]] == ["user", "assistant", "user"]  # the greeting kept
    assert names(first) == ["get_customer", "get_last_user_utterance", "end_session", "transfer_to_agent"]
    transfer = first["tools"][-1]["function"]["parameters"]["properties"]["agent_name"]
    assert transfer["enum"] == ["Loyalty Desk"]
    assert "tool_choice" not in first  # the default profile sends none
    second = model.requests[1]["messages"]
    assert second[-1]["role"] == "tool" and json.loads(second[-1]["content"])["name"] == "Ana Souza"
    (used,) = turn.of("tool_call")
    assert used.data["tool"] == "get_customer" and used.data["args"] == {"customer_id": "123"}


@pytest.mark.parametrize(
    ("name", "check"),
    [
        ("qwen/qwen3-next-80b-a3b-instruct-maas", lambda r: r["tool_choice"] == "auto"),
        (
            "deepseek-ai/deepseek-v3.1-maas",
            lambda r: (
                r["messages"][0]["role"] == "user" and "small online tea shop" in r["messages"][0]["content"]
            ),
        ),
        (
            "openai/gpt-oss-120b-maas",
            lambda r: (
                "tool_choice" not in r
                and r["messages"][0]["content"].startswith("You are a helpful assistant with access")
            ),
        ),
    ],
)
def test_model_profiles_shape_the_request(
    service: Runtime, model: ModelServer, name: str, check: Any
) -> None:
    chat = greeted(service, model, f"profile-{name}", name)
    model.play(says("ok"))
    turn = chat.turn("what do you sell?")
    assert turn.success and check(model.requests[0]), model.requests[0]
    assert model.requests[0]["model"] == name
    assert all(m["role"] != "system" for m in model.requests[0]["messages"]) == name.startswith("deepseek")


def test_a_before_model_callback_transfers_and_the_new_agent_answers(
    service: Runtime, model: ModelServer
) -> None:
    chat = greeted(service, model, "transfer")
    model.play(
        calls(call("update_customer_loyalty_points", {"points_to_add": 50})), says("Done: 150 points.")
    )
    turn = chat.turn("please add 50 loyalty points")
    assert turn.success and turn.agent == chat.agent == "Loyalty Desk"
    callback = next(
        e for e in turn.of("callback") if e.data["callback"] == "before_model" and e.data["output"]
    )
    assert callback.agent == "Front Desk"  # the real request's last content was the user's text
    assert [(e.data["from"], e.data["to"]) for e in turn.of("transfer")] == [("Front Desk", "Loyalty Desk")]
    # the first request is the Loyalty Desk's: the callback stood in for the model
    request = model.requests[0]
    profile = '{"email": "ana@example.com", "loyalty_points": 100, "plan": "Gold"}'
    assert f"The customer's profile is {profile}." in request["messages"][0]["content"]  # {customer_profile}
    assert names(request) == [
        "update_customer_loyalty_points",
        "summarize_cart",
        "crm_service_get_cart_information",
        "crm_service_add_cart_item",
        "end_session",
        "transfer_to_agent",
    ]
    assert request["tools"][-1]["function"]["parameters"]["properties"]["agent_name"]["enum"] == [
        "Front Desk"
    ]
    points = next(e for e in turn.of("tool_call") if e.data["tool"] == "update_customer_loyalty_points")
    assert points.data["output"]["loyalty_points"] == 150
    assert points.data["output"]["email"] == "[email]"  # the Loyalty Desk's after_tool callback ran
    assert chat.state["customer_profile"]["loyalty_points"] == 150
    assert turn.reply == "Done: 150 points."
    model.play(calls(call("update_customer_loyalty_points", {"points_to_add": 900})), says("Too many."))
    refused = chat.turn("add 900 more")
    assert "between 1 and 500" in json.dumps(refused.of("tool_call")[0].data["output"])  # before_tool
    assert chat.state["customer_profile"]["loyalty_points"] == 150


def test_a_code_guardrail_answers_instead_of_the_model(service: Runtime, model: ModelServer) -> None:
    chat = greeted(service, model, "guardrail")
    model.play(says("should not be asked"))
    turn = chat.turn("my card is 4111 1111 1111 1111")
    assert turn.reply == "Please never share card numbers here; our team will never ask for them."
    assert turn.of("guardrail")[0].data["reason"] == "the message holds a card number"
    assert model.requests == []


def test_bad_arguments_and_unknown_tools_get_error_texts(service: Runtime, model: ModelServer) -> None:
    chat = greeted(service, model, "bad-calls")
    model.play(
        calls(
            call("get_customer", "{not json", "c1"),
            call("launch_rockets", {}, "c2"),
            call("transfer_to_agent", {"agent_name": "Nobody"}, "c3"),
        ),
        says("Sorry, let me try again."),
    )
    turn = chat.turn("who am I?")
    assert turn.success and turn.agent == "Front Desk"
    replies = {m["tool_call_id"]: m["content"] for m in model.requests[1]["messages"] if m["role"] == "tool"}
    assert "not valid JSON" in replies["c1"]
    assert "no tool named 'launch_rockets'" in replies["c2"] and "get_customer" in replies["c2"]
    assert "agent_name must be one of: Loyalty Desk" in replies["c3"]
    assert not turn.of("transfer")


@pytest.mark.parametrize("failure", [{"status": 500}, {"delay": 0.6, "content": "late"}])
def test_a_failing_endpoint_is_a_model_error_and_the_session_is_unchanged(
    service: Runtime, model: ModelServer, failure: dict[str, Any]
) -> None:
    chat = greeted(service, model, f"failing-{failure.get('status', 'timeout')}", timeout=0.3)
    before = (list(chat.messages), chat.agent, chat.state)
    model.play(failure)
    turn = chat.turn("hello again")
    assert turn.error is not None and turn.error.kind == "model_error"
    assert ("HTTP 500" in turn.error.message) == ("status" in failure)
    assert "sk-test" not in json.dumps(turn.to_dict())
    assert (chat.messages, chat.agent, chat.state) == before
    model.play(says("back"))
    assert chat.turn("hello again").reply == "back"


def test_end_session_ends_the_conversation(service: Runtime, model: ModelServer) -> None:
    chat = greeted(service, model, "end")
    model.play(calls(call("end_session", {"reason": "done"})))
    turn = chat.turn("that's all, bye")
    assert turn.ended and chat.ended and turn.of("end_session")[0].data["args"] == {"reason": "done"}
    later = chat.turn("wait")
    assert later.error is not None and "has ended" in later.error.message


def test_after_model_gets_the_real_response_and_async_turns(model: ModelServer) -> None:
    """Support Desk: PARALLEL calls, an ASYNCHRONOUS tool (request_refund) whose result is sent
    later, and an after_model callback editing the model's real response. The refund's result may
    end before the model's next request is built or after it (a race the turn does not fix): either
    way it is sent once, and the reply after it carries the callback's edit."""

    async def play(rt: Runtime) -> Any:
        async with openai.AsyncOpenAI(base_url=model.base_url, api_key="k", max_retries=0) as async_client:
            chat = AppChat(rt, DESK, async_client, "test-model", session_id="async")
            model.play(
                calls(
                    call("lookup_order", {"order_id": "TEST-1"}, "a"),
                    call("request_refund", {"order_id": "TEST-1", "reason": "broken"}, "b"),
                ),
                says("One moment, your refund is being filed."),
                says("Your refund is on its way."),
            )
            return await chat.aturn("refund order TEST-1 please, it is broken")

    with app_runtime(DESK, fakes=True) as rt:
        turn = asyncio.run(play(rt))
    assert turn.success, turn.error
    assert [e.data["tool"] for e in turn.of("tool_call")] == ["lookup_order", "request_refund"]
    assert turn.of("tool_call")[1].data["output"] == {"status": "pending"}
    (finished,) = turn.of("tool_result")
    assert (
        finished.data["output"]["filed"] is True
        and finished.data["state_delta"]["set"]["refund_status"] == "requested"
    )
    last = model.requests[-1]["messages"]
    assert sum("The result of request_refund (call b)" in str(m.get("content")) for m in last) == 1
    after = [e for e in turn.of("callback") if e.data["callback"] == "after_model"]
    assert after[-1].data["output"] is not None
    assert turn.reply in (
        "One moment, your refund is being filed.(Refund status: requested.)",  # the result came first
        "Your refund is on its way.(Refund status: requested.)",
    )


def test_a_golden_played_against_the_model(service: Runtime, model: ModelServer) -> None:
    """add_points_golden: its transfer, tool call, tool response, variables and reply checked
    (played after the greeting, which the Front Desk's before_agent callback answers alone)."""
    from runtime.app._golden_model import play_golden

    evaluation = SERVICE.evaluations["add_points_golden"]
    script = (
        calls(call("update_customer_loyalty_points", {"points_to_add": 50})),
        says("Done: you now have 150 points."),
    )
    model.play(*script)
    checks = play_golden(greeted(service, model, "golden-pass"), evaluation)
    assert [(c.what, c.status) for c in checks] == [
        ("agentTransfer", "passed"),
        ("toolCall update_customer_loyalty_points", "passed"),
        ("toolResponse update_customer_loyalty_points", "passed"),
        ("updatedVariables", "passed"),
        ("agentResponse", "passed"),
    ]
    model.play(calls(call("update_customer_loyalty_points", {"points_to_add": 5})), says("Done."))
    failed = play_golden(greeted(service, model, "golden-fail"), evaluation)
    assert [c.status for c in failed] == ["passed", "failed", "failed", "failed", "skipped"]
    assert "expected args {'points_to_add': 50}, got [{'points_to_add': 5}]" in failed[1].detail


def test_the_key_is_required_and_read_by_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from runtime._cli import load_commands

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = ["app", "chat", str(SAMPLES / "Customer_Service"), "--model", "m"]
    missing = CliRunner().invoke(load_commands(), args, input="hi\n")
    assert missing.exit_code == 2 and "--api-key @FILE or env:VAR, or set OPENAI_API_KEY" in missing.output
    empty = tmp_path / "key"
    empty.write_text("")
    unreadable = CliRunner().invoke(load_commands(), [*args, "--api-key", f"@{empty}"], input="hi\n")
    assert unreadable.exit_code == 2 and "is empty" in unreadable.output


def test_temperature_is_inherited_from_the_parent_agent_then_the_app() -> None:
    from dataclasses import replace

    from runtime.app._chat import _model_settings
    from runtime.app._models import ModelSettings

    front = SERVICE.agents["Front Desk"]
    warmer = replace(
        front, resource=front.resource.model_copy(update={"model_settings": ModelSettings(temperature=0.2)})
    )
    app = replace(SERVICE, agents={**SERVICE.agents, "Front Desk": warmer})
    assert _model_settings(app, "Loyalty Desk") == {"temperature": 0.2}  # a child of Front Desk
    assert _model_settings(SERVICE, "Loyalty Desk") == {}  # the app sets only the model
    cooler = replace(
        app, resource=app.resource.model_copy(update={"model_settings": ModelSettings(temperature=0.7)})
    )
    assert _model_settings(replace(cooler, agents=SERVICE.agents), "Loyalty Desk") == {"temperature": 0.7}
