"""CES's system tools (``end_session``, ``transfer_to_agent``, ``customize_response``): answered
in a turn without code, as CES carries them out itself; a registered tool of the name wins."""

from __future__ import annotations

from runtime import Runtime
from runtime._calls import ToolCall
from runtime._turns import play_turn

OWN_END = '''
def end_session(reason: str) -> dict:
    """A tool of the app's own with the reserved name."""
    return {"own": reason}
'''


def test_system_tools_are_answered_in_a_turn(rt: Runtime) -> None:
    script = {
        "calls": [
            {"tool": "transfer_to_agent", "args": {"agent_name": "Billing"}},
            [{"tool": "customize_response", "args": {"content": "hi"}}, {"tool": "end_session"}],
            {"tool": "end_session", "args": {"reason": "done", "session_escalated": False}},
        ]
    }
    steps = play_turn(rt, script, "s")
    assert [(name, result.success, result.output) for name, result in steps] == [
        ("transfer_to_agent", True, {}),
        ("customize_response", True, {}),
        ("end_session", True, {}),
        ("end_session", True, {}),
    ]
    rt.add_tool(OWN_END)
    [own] = rt.run_turn([ToolCall("end_session", {"reason": "x"})], session_id="s")
    assert own.result.output == {"own": "x"}
    assert not rt.call("no_such_tool").success


def test_an_end_session_step_of_a_real_export_s_golden_passes(tmp_path) -> None:
    """bella_notte's goldens expect end_session; its own tools do not load here (another
    cause), so a copy of one of its goldens is replayed against a Runtime of no tools."""
    import json
    import os
    from pathlib import Path

    import pytest

    root = Path(os.environ.get("TOOLPEN_CES_EXPORTS", "/work/corpora/ces_exports")) / "bella_notte"
    if not root.is_dir():
        pytest.skip("the real exports are not here (TOOLPEN_CES_EXPORTS)")
    calls = []
    for path in sorted((root / "evaluations").glob("*/*.json")):
        text = json.loads(path.read_text(encoding="utf-8"))
        for turn in (text.get("golden") or {}).get("turns") or []:
            for step in turn.get("steps") or []:
                call = (step.get("expectation") or {}).get("toolCall") or {}
                if call.get("tool") == "end_session":
                    calls.append(call)
    assert calls, "bella_notte's goldens expect end_session"
    with Runtime() as rt:
        for call in calls:
            result = rt.call("end_session", call.get("args") or {}, session_id="golden")
            assert result.success, result.error


def test_a_transfer_names_an_agent_of_the_app() -> None:
    """ADK refuses a transfer to an agent not in its tree; CES's TransferAgent must be in the same app."""
    from runtime.app import app_runtime, load_app
    from tests.conftest import ROOT

    with app_runtime(load_app(ROOT / "samples/apps/Customer_Service")) as rt:
        results = [
            rt.call("transfer_to_agent", {"agent_name": name}, session_id="s")
            for name in ("Loyalty Desk", "Loyalty_Desk", "Billing")
        ]
    assert [result.success for result in results] == [True, True, False]
    error = results[2].error
    assert error is not None and error.kind == "invalid_arguments"
    assert error.message == (
        "transfer_to_agent: no agent named 'Billing' in the app (CES transfers to an agent of the same app, "
        "by its displayName: 'Front Desk', 'Front_Desk', 'Loyalty Desk', 'Loyalty_Desk')"
    )
