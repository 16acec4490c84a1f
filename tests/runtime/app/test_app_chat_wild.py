"""`toolpen app chat` and `toolpen app eval --model` on a real multi-agent export (Polymorphic
Pizza, from the local corpus of ``tests/corpora/ces_exports/SOURCES.md``; skipped when absent)
against a scripted Chat Completions server: its root agent routes through a tool, an after_tool
callback and a before_model callback that hides ``transfer_to_agent`` on the real request and
fires the transfer itself; the specialist answers in the same turn and ends the session."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runtime._cli import load_commands
from tests.model_server import ModelServer, call, calls, model_server, says

CORPUS = Path(os.environ.get("TOOLPEN_CES_EXPORTS", "/work/corpora/ces_exports"))
PIZZA = CORPUS / "polymorphic_pizza"
SECRET = "sk-never-printed-4711"

pytestmark = pytest.mark.skipif(
    not PIZZA.is_dir(),
    reason=f"{PIZZA} is absent: lay the exports out from tests/corpora/ces_exports/SOURCES.md",
)


@pytest.fixture(scope="module")
def model() -> Iterator[ModelServer]:
    with model_server() as server:
        yield server


def toolpen(args: list[str], model: ModelServer, stdin: str = "") -> tuple[int, str]:
    env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": model.base_url}
    result = CliRunner().invoke(load_commands(), args, input=stdin, env=env)
    output = result.output
    assert SECRET not in output
    return result.exit_code, output


def test_chat_routes_transfers_and_ends_the_session(model: ModelServer) -> None:
    model.play(
        calls(call("set_active_flow", {"flow": "order"})),
        calls(call("get_menu", {})),
        says("We have Margherita and Pepperoni. Which size?"),
        calls(call("end_session", {"reason": "customer is done"})),
    )
    code, output = toolpen(
        [
            "app",
            "chat",
            str(PIZZA),
            "--model",
            "qwen/qwen3-next-80b-a3b-instruct-maas",
            "--retries",
            "0",
            "--json",
        ],
        model,
        "I'd like to order a pizza\nthat's all, thanks\nnever read\n",
    )
    assert code == 0, output
    events = [json.loads(line) for line in output.splitlines()]
    kinds = [(event["kind"], event["agent"]) for event in events if event["kind"] != "note"]
    assert ("transfer", "Pizza_Host") in kinds and kinds[-1] == ("turn", "Order_Agent")
    host, order, _, closing = model.requests
    assert host["tool_choice"] == "auto"  # the qwen profile
    tools = [tool["function"]["name"] for tool in host["tools"]]
    assert tools == ["set_active_flow", "end_session"]  # transfer_to_agent hidden by the real callback
    assert "You are Polly, the friendly host at Polymorphic Pizza." in host["messages"][0]["content"]
    assert [tool["function"]["name"] for tool in order["tools"]][-1] == "transfer_to_agent"
    assert "order specialist" in order["messages"][0]["content"]
    flow = next(e for e in events if e["kind"] == "tool_call" and e["tool"] == "set_active_flow")
    assert flow["state_delta"]["set"] == {"_pending_transfer": "Order_Agent"}  # the after_tool callback
    fired = next(e for e in events if e["kind"] == "callback" and e["output"])
    assert fired["callback"] == "before_model" and fired["state_delta"]["deleted"] == ["_pending_transfer"]
    turns = [e for e in events if e["kind"] == "turn"]
    assert [t["reply"] for t in turns] == ["We have Margherita and Pepperoni. Which size?", ""]
    assert turns[-1]["ended"] and len(turns) == 2  # the third line is never read
    assert [m["role"] for m in closing["messages"]][-2:] == ["assistant", "user"]


def test_chat_compact_view(model: ModelServer) -> None:
    model.play(calls(call("set_active_flow", {"flow": "track"})), says("Your order number, please?"))
    code, output = toolpen(
        ["app", "chat", str(PIZZA), "--model", "llama-test", "--base-url", model.base_url, "--retries", "0"],
        model,
        "where is my pizza?\n",
    )
    assert code == 0, output
    assert '  [Pizza_Host] set_active_flow({"flow": "track"}) -> {"stored": true' in output
    assert "  -> transfer: Pizza_Host -> Tracking_Agent" in output
    assert output.rstrip().endswith("Tracking_Agent: Your order number, please?")


def test_eval_with_a_model_checks_each_golden_turn(model: ModelServer) -> None:
    model.play(
        calls(call("set_active_flow", {"flow": "order"})),  # Happy Path - Order Routing: right
        says("What would you like?"),
        calls(call("set_active_flow", {"flow": "order"})),  # Happy Path - Tracking Routing: wrong flow
        says("What would you like?"),
    )
    code, output = toolpen(["app", "eval", str(PIZZA), "--model", "test-model", "--retries", "0"], model)
    assert code == 1, output
    assert "Happy Path - Order Routing\n  turn 1  toolCall set_active_flow: passed" in output
    assert "turn 1  toolCall set_active_flow: failed  (expected args {'flow': 'track'}" in output
    assert output.splitlines()[-1].split() == ["total", "1", "1", "0"]
    assert [r["messages"][-1]["content"] for r in model.requests[::2]] == [
        "I'd like to order a pizza",
        "Can you check on my order PZA-1A2B3C?",
    ]


@pytest.mark.parametrize(
    "name", sorted(p.name for p in CORPUS.iterdir() if (p / "agents").is_dir()) if CORPUS.is_dir() else []
)
def test_every_agent_of_every_export_gets_a_system_prompt_and_its_transfers(name: str) -> None:
    """No runtime: what a request holds besides the tools, for each agent of the real exports."""
    from runtime.app import load_app
    from runtime.app._request import system_prompt, transfer_targets

    app = load_app(CORPUS / name)
    for agent in app.agents.values():
        prompt = system_prompt(app, agent, app.initial_state())
        assert "{@TOOL:" not in prompt and "{@AGENT:" not in prompt
        targets = transfer_targets(app, agent)
        assert set(targets) <= set(app.agents) - {agent.display_name}
        assert set(agent.resource.child_agents) & set(app.agents) <= set(targets)
