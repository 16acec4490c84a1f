"""``ToolResult``: what one call produced, in memory and as stored in a call record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from runtime._state import StateDelta
from sandbox.common.errors import ToolpenError, error_from_dict

if TYPE_CHECKING:
    from runtime._session import CallRecord


@dataclass
class ToolResult:
    """What one call produced. ``error`` is None on success; ``faked`` when a fake answered;
    ``replaced_by`` the tool callback (``before_tool_callback``, ``after_tool_callback``) whose
    return value is the output; ``dropped_arguments`` the keys a ``before_tool`` callback added to
    the input that the tool does not declare, left out of its call (as ADK's ``FunctionTool``)."""

    success: bool
    output: Any = None
    error: ToolpenError | None = None
    logs: str = ""
    state_delta: dict[str, Any] = field(default_factory=lambda: StateDelta().to_dict())
    state: dict[str, Any] = field(default_factory=dict)
    call_id: str = ""
    session_id: str | None = None
    replayed: bool = False
    faked: bool = False
    replaced_by: str | None = None
    dropped_arguments: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape: ``{"success", "output", "error", "state", "state_delta", "logs"}``,
        plus ``"faked": true`` when a fake stood in for the tool and ``"replaced_by"`` when a tool
        callback's return value is the output, ``"dropped_arguments"`` when some were."""
        data = {
            "success": self.success,
            "output": self.output,
            "error": self.error.to_dict() if self.error else None,
            "state": self.state,
            "state_delta": self.state_delta,
            "logs": self.logs,
        }
        if self.faked:
            data["faked"] = True
        if self.replaced_by:
            data["replaced_by"] = self.replaced_by
        if self.dropped_arguments:
            data["dropped_arguments"] = self.dropped_arguments
        return data

    def stored(self) -> dict[str, Any]:
        """What a call record keeps, so a retry can answer without running: the result and the
        delta, never the whole state (a call's record costs what it changed, not what the
        session holds; ``temp:`` keys are never stored)."""
        data = self.to_dict()
        del data["state"]
        data["state_delta"] = StateDelta.from_dict(self.state_delta).without_temp().to_dict()
        return data

    @classmethod
    def from_record(cls, record: CallRecord, state: dict[str, Any]) -> ToolResult:
        """The stored result of an earlier run, replayed with ``state``, the session's current
        one (a record of an earlier release may still hold the state the call left: then that)."""
        data = record.result or {}
        error = data.get("error")
        return cls(
            success=bool(data.get("success")),
            output=data.get("output"),
            error=error_from_dict(error) if error else None,
            logs=data.get("logs", ""),
            state_delta=data.get("state_delta") or StateDelta().to_dict(),
            state=data["state"] if isinstance(data.get("state"), dict) else state,
            call_id=record.call_id,
            session_id=record.session_id,
            replayed=True,
            faked=bool(data.get("faked")),
            replaced_by=data.get("replaced_by"),
            dropped_arguments=list(data.get("dropped_arguments") or []),
        )
