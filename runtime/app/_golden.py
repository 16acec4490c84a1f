"""``replay_golden``: a golden evaluation's tool-level steps run against the app, without a model.

A golden turn is the user's input followed by expectations. What a model decides (its replies,
agent transfers, that no tool was called) cannot be replayed without one and is reported as
skipped. What a tool decides can: each ``toolCall`` expectation is called with its ``args`` in
the evaluation's session (the tool callbacks around it, the turn's user text as the context's
``user_content``); a ``toolResponse`` expectation compares each member of its ``response`` with
the same member of that tool's last result (a result that is not an object reads as
``{"result": value}``: our reading, the comparison CES applies is not documented); an
``updatedVariables`` expectation compares each variable with the session's state after the
calls so far. A ``toolsetTool`` call names ``<toolset>_<operation>`` as ``tools.`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic.alias_generators import to_camel

from runtime._openapi_toolset import snake_case
from runtime._results import ToolResult
from runtime._runtime import Runtime
from runtime.app._loader import AppEvaluation
from runtime.app._models import GoldenExpectation

Status = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True)
class Check:
    """One expectation of a golden turn (numbered from 1) and what the replay made of it."""

    turn: int
    what: str
    status: Status
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "what": self.what, "status": self.status, "detail": self.detail}


def replay_goldens(rt: Runtime, evaluations: list[AppEvaluation]) -> list[tuple[str, list[Check]]]:
    """Each evaluation (display name, checks), replayed in a new session of its own."""
    return [
        (evaluation.display_name, replay_golden(rt, evaluation, f"evaluation-{number}"))
        for number, evaluation in enumerate(evaluations, 1)
    ]


def replay_golden(rt: Runtime, evaluation: AppEvaluation, session: str) -> list[Check]:
    """Every expectation of the golden ``evaluation``, replayed in ``session`` of ``rt``."""
    golden = evaluation.resource.golden
    if golden is None:
        return [Check(0, "scenario", "skipped", "a scenario needs a simulated user and a model")]
    checks: list[Check] = []
    last: dict[str, ToolResult] = {}
    for number, turn in enumerate(golden.turns, 1):
        texts = [step.user_input.get("text") for step in turn.steps if step.user_input]
        parts = [{"text": text} for text in texts if isinstance(text, str)]
        context = {"user_content": {"role": "user", "parts": parts}} if parts else {}
        checks += _agent_callbacks(rt, "before_agent", number, session, context)
        for step in turn.steps:
            if step.agent_transfer is not None:
                checks.append(Check(number, "agentTransfer", "skipped", "the model transfers"))
            if step.expectation is not None:
                checks.append(_expect(rt, step.expectation, number, session, context, last))
        checks += _agent_callbacks(rt, "after_agent", number, session, context)
    return checks


def _agent_callbacks(rt: Runtime, kind: str, turn: int, session: str, context: dict[str, Any]) -> list[Check]:
    """The agent's ``kind`` callbacks, run as CES runs them around each turn (none: no check);
    a failure is a failed check, since the turn's state is not what CES would have."""
    if not rt.callbacks().get(kind):
        return []
    rt.store.get_or_create_session(rt.app_name, rt.user_id, session, dict(rt.unit_of_work.initial_state))
    result = rt.run_callbacks(kind, context=context, session_id=session)
    if result.success:
        return []
    detail = result.error.message if result.error else "failed"
    return [Check(turn, f"{kind}_callback", "failed", detail)]


def _expect(
    rt: Runtime,
    expectation: GoldenExpectation,
    turn: int,
    session: str,
    context: dict[str, Any],
    last: dict[str, ToolResult],
) -> Check:
    if expectation.tool_call is not None:
        name = golden_tool_name(expectation.tool_call)
        what = f"toolCall {name}"
        if expectation.skip_evaluation:
            return Check(turn, what, "skipped", "skipEvaluation")
        if "args" not in expectation.tool_call and _needs_arguments(rt, name):
            return Check(turn, what, "skipped", "the golden gives no args: the model chooses them")
        result = rt.call(name, expectation.tool_call.get("args") or {}, context=context, session_id=session)
        last[name] = result
        if result.success:
            return Check(turn, what, "passed")
        detail = result.error.message if result.error else "failed"
        return Check(turn, what, "failed", detail)
    if expectation.tool_response is not None:
        name = golden_tool_name(expectation.tool_response)
        what = f"toolResponse {name}"
        if expectation.skip_evaluation:
            return Check(turn, what, "skipped", "skipEvaluation")
        if name not in last or not last[name].success:
            return Check(turn, what, "failed", f"{name} was not called successfully before")
        output = last[name].output
        actual = output if isinstance(output, dict) else {"result": output}
        return compare_members(turn, what, expectation.tool_response.get("response") or {}, actual)
    if expectation.updated_variables is not None:
        what = "updatedVariables"
        if expectation.skip_evaluation:
            return Check(turn, what, "skipped", "skipEvaluation")
        stored = rt.store.get_session(session, events=False)  # none yet: no tool was called before
        state = stored.state if stored is not None else rt.unit_of_work.initial_state
        return compare_members(turn, what, expectation.updated_variables, state)
    kind = next(
        (
            member
            for member in ("agent_response", "agent_transfer", "mock_tool_response", "no_tool_calls")
            if getattr(expectation, member) is not None
        ),
        "expectation",
    )
    return Check(turn, to_camel(kind), "skipped", "needs a model")


def golden_tool_name(call: dict[str, Any]) -> str:
    toolset_tool = call.get("toolsetTool")
    if isinstance(toolset_tool, dict):
        return f"{toolset_tool.get('toolset')}_{snake_case(str(toolset_tool.get('toolId')))}"
    return str(call.get("tool"))


def _needs_arguments(rt: Runtime, name: str) -> bool:
    """Whether the tool ``name`` (registered) has a required parameter."""
    tool = rt.registry.find(name)
    return tool is not None and bool(tool.spec.parameters.get("required"))


def _matches(expected: Any, actual: Any) -> bool:
    """``expected`` is within ``actual``: an object's members each match (others may be there too;
    our reading of CES's comparison, which goldens written against CES need), else equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(key in actual and _matches(value, actual[key]) for key, value in expected.items())
    return bool(expected == actual)


def compare_members(turn: int, what: str, expected: dict[str, Any], actual: dict[str, Any]) -> Check:
    differ = [key for key, value in expected.items() if not _matches(value, actual.get(key))]
    if not differ:
        return Check(turn, what, "passed")
    shown = "; ".join(f"{key}: expected {expected[key]!r}, got {actual.get(key)!r}" for key in differ)
    return Check(turn, what, "failed", shown)
