"""Hard limits of one call, with their defaults.

A runtime has one ``Limits``; a tool may override fields (``Limits.merged``). The worker
enforces what it can from inside (rlimits, recursion, output capture); the parent enforces the
wall-clock deadline with SIGKILL.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
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
    state_value_size: int = 4 * MiB  # each value a call sets in the state, as JSON
    recursion: int = 200
    open_files: int = 64
    scratch_size: int = 8 * MiB  # bytes in the call's scratch directory (files of open, tempfile, pathlib)
    scratch_files: int = 1000  # files and directories in it

    def merged(self, overrides: dict[str, Any] | None) -> Limits:
        """A copy with ``overrides`` applied; unknown names are an error."""
        if not overrides:
            return self
        unknown = overrides.keys() - _NAMES
        if unknown:
            raise ValueError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        return type(self)(**{**vars(self), **overrides})  # not dataclasses.replace: this is per call

    def within(self, seconds: float) -> Limits:
        """These limits for a step with ``seconds`` of its call left: no more wall or CPU time than that."""
        if seconds >= self.wall_time:
            return self
        # once per call: a copy of the fields, not a run of the frozen __init__
        clipped = object.__new__(type(self))
        vars(clipped).update(
            vars(self), wall_time=seconds, cpu_time=seconds if seconds < self.cpu_time else self.cpu_time
        )
        return clipped

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))  # flat and immutable: no deep copy needed (asdict costs ~50 µs a call)


_NAMES = frozenset(field.name for field in fields(Limits))
