"""``play_golden``: a golden evaluation's user turns played against a model (``AppChat``), each
expectation checked against what the turn did.

- ``toolCall``: some call of the turn named the tool, with every argument the golden states
  equal (arguments it does not state are free, as CES's ``extraToolCallBehavior`` reads);
- ``toolResponse``: that tool's last result in the turn holds the stated members (a result
  that is not an object reads as ``{"result": value}``, as ``toolpen app eval`` without a model);
- ``agentTransfer`` (a step or an expectation): the turn transferred to the agent (its display
  name, or the last part of its resource name);
- ``updatedVariables``: the session's state after the turn;
- ``noToolCalls``: the turn called no tool;
- ``agentResponse``: the reply equals the golden's text (case and spaces aside); a different
  reply passes when the app's ``semanticSimilaritySuccessThreshold`` is 0, else it is skipped,
  for the similarity CES scores needs a judge model;
- ``mockToolResponse`` and ``skipEvaluation`` ones are skipped.
A turn that failed (the model endpoint, a callback) fails its every expectation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from runtime.app._chat import AppChat, ChatTurn
from runtime.app._golden import Check, compare_members, golden_tool_name
from runtime.app._loader import App, AppEvaluation
from runtime.app._models import GoldenExpectation


def play_golden(chat: AppChat, evaluation: AppEvaluation) -> list[Check]:
    """Play the golden's turns in ``chat`` (a new conversation) and check each expectation."""
    golden = evaluation.resource.golden
    if golden is None:
        return [Check(0, "scenario", "skipped", "a scenario needs a simulated user")]
    checks: list[Check] = []
    for number, golden_turn in enumerate(golden.turns, 1):
        texts = [step.user_input.get("text") for step in golden_turn.steps if step.user_input]
        text = " ".join(str(item) for item in texts if item)
        turn = chat.turn(text) if text else None
        for step in golden_turn.steps:
            if step.agent_transfer is not None:
                checks.append(_transfer(chat.app, number, turn, step.agent_transfer))
            if step.expectation is not None:
                checks.append(_expect(chat, step.expectation, number, turn))
    return checks


def _expect(chat: AppChat, expectation: GoldenExpectation, number: int, turn: ChatTurn | None) -> Check:
    what = _what(expectation)
    if expectation.skip_evaluation:
        return Check(number, what, "skipped", "skipEvaluation")
    if expectation.mock_tool_response is not None:
        return Check(number, what, "skipped", "a mocked tool response is not played")
    if turn is None:
        return Check(number, what, "failed", "the golden turn has no user input to play")
    if turn.error is not None:
        return Check(number, what, "failed", f"the turn failed: {turn.error.kind}: {turn.error.message}")
    calls = [event.data for event in turn.of("tool_call")]
    if expectation.tool_call is not None:
        return _tool_call(number, what, expectation.tool_call, calls)
    if expectation.tool_response is not None:
        name = golden_tool_name(expectation.tool_response)
        results = [call for call in calls if call["tool"] == name and call["success"]]
        if not results:
            return Check(number, what, "failed", f"{name} was not called successfully in the turn")
        output = results[-1]["output"]
        actual = output if isinstance(output, dict) else {"result": output}
        return compare_members(number, what, expectation.tool_response.get("response") or {}, actual)
    if expectation.agent_transfer is not None:
        return _transfer(chat.app, number, turn, expectation.agent_transfer)
    if expectation.updated_variables is not None:
        return compare_members(number, what, expectation.updated_variables, chat.state)
    if expectation.no_tool_calls:
        shown = ", ".join(call["tool"] for call in calls)
        return Check(number, what, "failed", f"called {shown}") if calls else Check(number, what, "passed")
    if expectation.agent_response is not None:
        return _response(chat.app, number, what, expectation.agent_response, turn.reply)
    return Check(number, what, "skipped", "nothing toolpen can check")


def _what(expectation: GoldenExpectation) -> str:
    for member, label in (("tool_call", "toolCall"), ("tool_response", "toolResponse")):
        value = getattr(expectation, member)
        if value is not None:
            return f"{label} {golden_tool_name(value)}"
    members = ("agent_transfer", "updated_variables", "no_tool_calls", "agent_response", "mock_tool_response")
    found = next((member for member in members if getattr(expectation, member) is not None), "expectation")
    return "".join(word.capitalize() if i else word for i, word in enumerate(found.split("_")))


def _tool_call(number: int, what: str, expected: Mapping[str, Any], calls: list[dict[str, Any]]) -> Check:
    name = golden_tool_name(dict(expected))
    wanted = dict(expected.get("args") or {})
    named = [call for call in calls if call["tool"] == name]
    if any(all(call["args"].get(key) == value for key, value in wanted.items()) for call in named):
        return Check(number, what, "passed")
    if not named:
        shown = ", ".join(call["tool"] for call in calls) or "no tool"
        return Check(number, what, "failed", f"{name} was not called (called: {shown})")
    return Check(number, what, "failed", f"expected args {wanted}, got {[call['args'] for call in named]}")


def _transfer(app: App, number: int, turn: ChatTurn | None, expected: Mapping[str, Any]) -> Check:
    target = str(expected.get("targetAgent") or expected.get("displayName") or "")
    if turn is None or turn.error is not None:
        return Check(number, "agentTransfer", "failed", "the turn did not run")
    names = {target, target.rsplit("/", 1)[-1]}
    resources = {name for name, agent in app.agents.items() if agent.resource.name in names}
    moved = [event.data["to"] for event in turn.of("transfer")]
    if names & set(moved) or resources & set(moved):
        return Check(number, "agentTransfer", "passed", target)
    return Check(number, "agentTransfer", "failed", f"expected a transfer to {target}, got {moved or 'none'}")


def _response(app: App, number: int, what: str, expected: Mapping[str, Any], reply: str) -> Check:
    chunks = expected.get("chunks") or []
    wanted = "".join(str(chunk.get("text") or "") for chunk in chunks if isinstance(chunk, Mapping))
    if " ".join(wanted.lower().split()) == " ".join(reply.lower().split()):
        return Check(number, what, "passed")
    thresholds = (app.resource.evaluation_metrics_thresholds or {}).get(
        "goldenEvaluationMetricsThresholds"
    ) or {}
    threshold = (thresholds.get("turnLevelMetricsThresholds") or {}).get("semanticSimilaritySuccessThreshold")
    if threshold == 0:
        return Check(number, what, "passed", f"semanticSimilaritySuccessThreshold 0; replied {reply!r}")
    return Check(
        number,
        what,
        "skipped",
        f"semantic similarity needs a judge model; expected {wanted!r}, replied {reply!r}",
    )
