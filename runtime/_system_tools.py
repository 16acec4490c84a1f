"""CES's system tools: the names an agent lists in its ``tools`` without any code behind them.

CES's system tools reference (``conversational-agents/ps/tool/system``) documents
``customize_response(content, enable_dtmf, dtmf_endpointing_timeout_modes, dtmf_finish_digit,
disable_barge_in)`` and ``end_session(reason, session_escalated, params)``; the export format
also reserves ``transfer_to_agent`` (``agent_name``, as ADK's and ``Part.from_agent_transfer``
write it); the API's ``SystemTool`` message holds only a name. No other name was found. CES
carries them out itself (sends the customized response, ends the session, hands over to another
agent); a local runtime has no conversation to end, so a call succeeds with an empty response
and changes nothing (inferred: what CES answers the model is not documented), except that a
transfer must name an agent of the app, as ADK refuses a transfer to an agent not in its tree
(``TransferAgent``: "must be in the same app"). A registered tool of the same name wins.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sandbox.common.errors import InvalidArguments

SYSTEM_TOOLS = frozenset({"end_session", "transfer_to_agent", "customize_response"})


def system_answer(name: str, args: dict[str, Any], agents: Collection[str] | None = None) -> dict[str, Any]:
    """What a system tool's call answers here: an empty response; a ``transfer_to_agent`` to an
    agent not in ``agents`` (when given) is refused, naming the agents there are."""
    if name == "transfer_to_agent" and agents is not None:
        target = args.get("agent_name")
        if target not in agents:
            known = ", ".join(repr(agent) for agent in sorted(agents)) or "none"
            raise InvalidArguments(
                f"transfer_to_agent: no agent named {target!r} in the app (CES transfers to an agent of "
                f"the same app, by its displayName: {known})"
            )
    return {}
