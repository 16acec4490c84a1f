"""Hard limits of one call, with their defaults.

A runtime has one ``Limits``; a tool may override fields (``Limits.merged``). The worker
enforces what it can from inside (rlimits, recursion, output capture); the parent enforces the
wall-clock deadline with SIGKILL.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

MiB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Per-call limits. Times in seconds, sizes in bytes."""

    wall_time: float = 10.0
    cpu_time: float = 10.0
    memory: int = 512 * MiB
    output: int = 64 * 1024
    result_size: int = 4 * MiB
    state_size: int = 4 * MiB  # the session state a call leaves behind, as JSON; also caps each RPC
    recursion: int = 200
    open_files: int = 64

    def merged(self, overrides: dict[str, Any] | None) -> Limits:
        """A copy with ``overrides`` applied; unknown names are an error."""
        if not overrides:
            return self
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:
            raise ValueError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        return replace(self, **overrides)

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))  # flat and immutable: no deep copy needed (asdict costs ~50 µs a call)
