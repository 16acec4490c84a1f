"""The tools a runtime knows: Python tools from source and OpenAPI endpoint tools."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from runtime._execution import ExecutionType
from runtime._schema import ToolSpec
from runtime._schema.arguments import ArgumentValidator
from runtime._schema.formats import lower
from sandbox.common.errors import InvalidSource, NotFound
from sandbox.common.limits import Limits

if TYPE_CHECKING:
    from runtime._openapi_toolset import Operation


@dataclass(frozen=True)
class ToolOptions:
    """How a host registered a tool: loading, the hints protocols pass on to models, and how CES runs it."""

    defer_loading: bool = False
    idempotent: bool = False
    read_only: bool = False
    execution_type: ExecutionType = "SYNCHRONOUS"
    """``ASYNCHRONOUS``: in a turn the session carries on while the tool runs (``runtime/_execution.py``)."""
    timeout: float | None = None
    """Seconds of wall time, over the runtime's (or the tool's own) ``Limits.wall_time``."""


@dataclass(frozen=True)
class Tool:
    """A registered tool: its name, its spec and how it was registered."""

    name: str
    spec: ToolSpec
    options: ToolOptions = field(default_factory=ToolOptions)

    @cached_property
    def arguments(self) -> ArgumentValidator:
        """Checks a call's arguments against the tool's parameters (compiled on first use)."""
        return ArgumentValidator(self.spec.parameters)

    @property
    def aliases(self) -> tuple[str, ...]:
        """Other names tool code may call it by (``tools.<alias>``); models see only ``name``."""
        return ()

    def schema(self, fmt: str = "openai", *, strict: bool = False) -> dict[str, Any]:
        """The tool's definition in one of `runtime._schema.formats.FORMATS`."""
        return lower(self.spec, fmt, strict=strict).schema


@dataclass(frozen=True)
class PythonTool(Tool):
    """A tool whose code runs in the sandbox."""

    source: str = ""
    limits: Limits | None = None


@dataclass(frozen=True)
class EndpointTool(Tool):
    """A tool that calls one OpenAPI operation through the HTTP broker."""

    operation: Operation | None = None

    @property
    def aliases(self) -> tuple[str, ...]:
        """The operation's name with its operationId as written, which CES code calls it by."""
        ces_name = self.operation.ces_name if self.operation else ""
        return (ces_name,) if ces_name and ces_name != self.name else ()


class Registry:
    """Thread-safe name -> tool map; a name is registered once unless replaced explicitly.

    A tool's aliases resolve to it too, unless a tool has that name: names win over aliases."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        self._aliases: dict[str, str] = {}
        self._lock = threading.Lock()

    def add(self, tool: Tool, *, replace: bool = False) -> Tool:
        with self._lock:
            if tool.name in self._tools and not replace:
                raise InvalidSource(f"a tool named {tool.name!r} is already registered")
            self._tools[tool.name] = tool
            self._aliases.update(dict.fromkeys(tool.aliases, tool.name))
        return tool

    def get(self, name: str) -> Tool:
        tool = self.find(name)
        if tool is None:
            raise NotFound(f"no tool named {name!r} is registered")
        return tool

    def find(self, name: str) -> Tool | None:
        """The tool ``name`` (or the tool with that alias), or None."""
        return self._tools.get(name) or self._tools.get(self._aliases.get(name, ""))

    def remove(self, name: str) -> bool:
        with self._lock:
            tool = self._tools.pop(name, None)
            for alias in tool.aliases if tool else ():
                self._aliases.pop(alias, None)
            return tool is not None

    def __iter__(self) -> Iterator[Tool]:
        """The tools in registration order (a snapshot: registering meanwhile is safe)."""
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools
