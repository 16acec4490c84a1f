"""Located findings about tool source: what `toolpen check` and `toolpen schema` report."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Level = Literal["error", "warning", "note"]
"""A note is information, not a problem: `toolpen check` exits 0 on notes alone."""


@dataclass(frozen=True)
class Diagnostic:
    """One finding at a line and column of the tool source (1-based line, 1-based column)."""

    level: Level
    message: str
    line: int
    col: int
    code: str = "toolpen"

    def format(self, filename: str) -> str:
        """The ``file:line:col: level: message`` form that editors understand."""
        return f"{filename}:{self.line}:{self.col}: {self.level}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
