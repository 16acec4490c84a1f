"""Which walls a call runs behind: a leaf both sides read."""

from __future__ import annotations

from typing import Literal

WallsMode = Literal["all", "process"]
"""``"all"`` (the language wall inside the process wall, the default) or ``"process"`` (plain
CPython, the process wall alone). A job carries it as ``"walls"``."""
WALLS_MODES: tuple[WallsMode, ...] = ("all", "process")
