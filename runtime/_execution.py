"""How CES runs tools: a tool's execution type and timeout, and an app's tool execution mode.

- ``ExecutionType`` (API ``ExecutionType``): ``SYNCHRONOUS`` (the session waits for the tool) or
  ``ASYNCHRONOUS`` (the session continues while it runs; its result comes later).
- A tool's timeout (API ``Tool.timeout``, a protobuf duration such as ``"45s"``): when unset, 30 s
  for a synchronous tool and 60 s for an asynchronous one.
- ``ToolExecutionMode`` (API ``App.tool_execution_mode``): when a model turn selects several tools,
  ``PARALLEL`` (the default) runs them at once against the same context, ``SEQUENTIAL`` one after
  the other, each seeing the context the previous one left.

The call types a turn runner takes and answers (``ToolCall``, ``TurnCall``) are ``runtime/_calls.py``.
"""

from __future__ import annotations

import re
from typing import Literal, cast

from sandbox.common.errors import InvalidArguments

ExecutionType = Literal["SYNCHRONOUS", "ASYNCHRONOUS"]
EXECUTION_TYPES: tuple[ExecutionType, ...] = ("SYNCHRONOUS", "ASYNCHRONOUS")

ToolExecutionMode = Literal["PARALLEL", "SEQUENTIAL"]
TOOL_EXECUTION_MODES: tuple[ToolExecutionMode, ...] = ("PARALLEL", "SEQUENTIAL")

CES_TIMEOUTS: dict[ExecutionType, float] = {"SYNCHRONOUS": 30.0, "ASYNCHRONOUS": 60.0}
"""CES's default timeout of a tool, by execution type, in seconds."""


_DURATION = re.compile(r"^(\d+(?:\.\d{1,9})?)s$")


def parse_execution_type(value: str | None) -> ExecutionType:
    """An execution type from CES's names; unset and ``EXECUTION_TYPE_UNSPECIFIED`` are ``SYNCHRONOUS``."""
    if value in (None, "", "EXECUTION_TYPE_UNSPECIFIED"):
        return "SYNCHRONOUS"
    if value not in EXECUTION_TYPES:
        raise InvalidArguments(f"execution type is one of {', '.join(EXECUTION_TYPES)}, not {value!r}")
    return cast(ExecutionType, value)


def parse_tool_execution_mode(value: str | None) -> ToolExecutionMode:
    """A tool execution mode from CES's names; unset and ``TOOL_EXECUTION_MODE_UNSPECIFIED`` are ``PARALLEL``."""
    if value in (None, "", "TOOL_EXECUTION_MODE_UNSPECIFIED"):
        return "PARALLEL"
    if value not in TOOL_EXECUTION_MODES:
        raise InvalidArguments(
            f"tool execution mode is one of {', '.join(TOOL_EXECUTION_MODES)}, not {value!r}"
        )
    return cast(ToolExecutionMode, value)


def parse_duration(text: str) -> float:
    """Seconds from a protobuf duration in JSON (``"30s"``, ``"2.5s"``); ``InvalidArguments`` otherwise."""
    match = _DURATION.match(text.strip())
    if match is None or float(match.group(1)) <= 0:
        raise InvalidArguments(f"a timeout is a positive number of seconds such as '30s', not {text!r}")
    return float(match.group(1))


def ces_timeout(kind: ExecutionType, timeout: str | None = None) -> float:
    """A CES tool's timeout in seconds: its own ``timeout`` when set, else CES's default for ``kind``."""
    return parse_duration(timeout) if timeout else CES_TIMEOUTS[kind]
