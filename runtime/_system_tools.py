"""CES's system tools: the names an agent lists in its ``tools`` without any code behind them.

The export format reserves ``end_session``, ``transfer_to_agent`` and ``customize_response``
(seen: CES's export reference); ``end_session(reason, session_escalated, params)`` is seen in
CES's handoff guide. CES carries them out itself (ends the session, hands over to another
agent, sends the customized response); a local runtime has no conversation to end, so a call
of one succeeds with an empty response and changes nothing (inferred: what CES answers the
model is not documented). A registered tool of the same name wins.
"""

from __future__ import annotations

from typing import Any

SYSTEM_TOOLS = frozenset({"end_session", "transfer_to_agent", "customize_response"})


def system_answer(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """What a system tool's call answers here: an empty response (``args`` are the model's, unused)."""
    del args
    return {}
