"""Shared fixtures: a real Runtime with real worker processes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from runtime import Runtime

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


@pytest.fixture
def rt() -> Iterator[Runtime]:
    with Runtime(store="memory://") as runtime:
        yield runtime


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'sessions.db'}"
